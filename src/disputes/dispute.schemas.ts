import { Type, type Static } from 'typebox';
import { StringEnum } from '../platform/http/envelope.js';

export const DISPUTE_OUTCOMES = ['ACCEPTED', 'REJECTED'] as const;
const Outcome = StringEnum(DISPUTE_OUTCOMES);

/** docs/contract/charges.md#disputes: `outcome` appears once the dispute is resolved. */
export const DisputeSchema = Type.Object({
  id: Type.String(),
  chargeId: Type.String(),
  status: StringEnum(['OPEN', 'RESOLVED'] as const),
  outcome: Type.Optional(Outcome),
  blockedAmount: Type.Integer(),
});

export const DisputeResolveBody = Type.Object({ outcome: Outcome });

export type Dispute = Static<typeof DisputeSchema>;
export type DisputeOutcome = Static<typeof Outcome>;
