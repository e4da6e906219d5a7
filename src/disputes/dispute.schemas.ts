import { Type, type Static } from 'typebox';

const Outcome = Type.Unsafe<'ACCEPTED' | 'REJECTED'>({ type: 'string', enum: ['ACCEPTED', 'REJECTED'] });

/** Decisions parts 7 and 13: `outcome` appears once the dispute is resolved. */
export const DisputeSchema = Type.Object({
  id: Type.String(),
  chargeId: Type.String(),
  status: Type.Unsafe<'OPEN' | 'RESOLVED'>({ type: 'string', enum: ['OPEN', 'RESOLVED'] }),
  outcome: Type.Optional(Outcome),
  blockedAmount: Type.Integer(),
});

export const DisputeResolveBody = Type.Object({ outcome: Outcome });

export type Dispute = Static<typeof DisputeSchema>;
export type DisputeOutcome = Static<typeof Outcome>;
