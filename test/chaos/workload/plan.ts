import { randomInt } from 'node:crypto';
import fc from 'fast-check';

/**
 * The workload is a plan drawn by fast-check from one seed: merchants with random contracts and
 * batches of abstract operations. Targets are picks (naturals) resolved against the model when the
 * batch runs, so the same seed replays the same sequence of intentions (thread timing still varies).
 */
export interface MerchantSpec {
  chargeFeeFixed: number;
  chargeFeeBps: number;
  withdrawalFeeFixed: number;
  minTicket: number;
  maxWithdrawal: number;
}

export type SplitSpec = { r: number; mode: 'PERCENT' | 'FIXED'; value: number };

export type OpSpec =
  | { kind: 'charge'; m: number; amount: number; split: SplitSpec[]; shortExpiry: boolean; idem: 'none' | 'replay' | 'concurrent' }
  | { kind: 'pay'; pick: number; dup: boolean }
  | { kind: 'notify'; pick: number; mode: 'same' | 'other' | 'fresh' }
  | { kind: 'refund'; pick: number; dup: boolean; replay: boolean; foreign: boolean }
  | { kind: 'refundSettle'; pick: number; outcome: 'complete' | 'fail'; dup: 'none' | 'complete' | 'fail' }
  | { kind: 'dispute'; pick: number; dup: boolean }
  | { kind: 'resolve'; pick: number; outcome: 'ACCEPTED' | 'REJECTED'; dup: boolean }
  | { kind: 'withdraw'; m: number; percent: number; failKey: boolean; dup: 'none' | 'same-key' | 'other-key' }
  | { kind: 'payoutSettle'; pick: number; outcome: 'complete' | 'fail' }
  | { kind: 'contract'; m: number; contract: Omit<MerchantSpec, 'maxWithdrawal'> };

export type OpKind = OpSpec['kind'];

export interface Plan {
  merchants: MerchantSpec[];
  batches: OpSpec[][];
  /** SIM_PAYOUT_DELAY_MS and SIM_REFUND_DELAY_MS: small, so controls race the automatic settlement. */
  simPayoutDelayMs: number;
  simRefundDelayMs: number;
}

const merchantArb = fc.record({
  chargeFeeFixed: fc.integer({ min: 0, max: 150 }),
  chargeFeeBps: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })),
  withdrawalFeeFixed: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
  minTicket: fc.integer({ min: 100, max: 400 }),
  maxWithdrawal: fc.oneof({ weight: 4, arbitrary: fc.constant(100_000_000) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }) }),
});

const pick = fc.nat(1_000_000);

const splitArb = fc.record({
  r: fc.nat(1000),
  mode: fc.constantFrom('PERCENT' as const, 'FIXED' as const),
  value: fc.integer({ min: 1, max: 45 }),
});

const opArb = (opts: { notify: boolean }): fc.Arbitrary<OpSpec> => fc.oneof(
  { weight: 6, arbitrary: fc.record({
    kind: fc.constant('charge' as const), m: fc.nat(1000),
    amount: fc.oneof(fc.integer({ min: 100, max: 3_000 }), fc.integer({ min: 3_000, max: 60_000 })),
    split: fc.oneof({ weight: 3, arbitrary: fc.constant<SplitSpec[]>([]) }, { weight: 2, arbitrary: fc.array(splitArb, { minLength: 1, maxLength: 3 }) }),
    shortExpiry: fc.boolean(),
    idem: fc.constantFrom('none' as const, 'none' as const, 'replay' as const, 'concurrent' as const),
  }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick, dup: fc.boolean() }) },
  { weight: opts.notify ? 1 : 0, arbitrary: fc.record({ kind: fc.constant('notify' as const), pick, mode: fc.constantFrom('same' as const, 'other' as const, 'fresh' as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick, dup: fc.boolean(), replay: fc.boolean(), foreign: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({
    kind: fc.constant('refundSettle' as const), pick, outcome: fc.constantFrom('complete' as const, 'fail' as const),
    dup: fc.constantFrom('none' as const, 'none' as const, 'complete' as const, 'fail' as const),
  }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('dispute' as const), pick, dup: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resolve' as const), pick, outcome: fc.constantFrom('ACCEPTED' as const, 'REJECTED' as const), dup: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({
    kind: fc.constant('withdraw' as const), m: fc.nat(1000), percent: fc.integer({ min: 1, max: 130 }), failKey: fc.boolean(),
    dup: fc.constantFrom('none' as const, 'none' as const, 'same-key' as const, 'other-key' as const),
  }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('payoutSettle' as const), pick, outcome: fc.constantFrom('complete' as const, 'fail' as const) }) },
  { weight: 1, arbitrary: fc.record({
    kind: fc.constant('contract' as const), m: fc.nat(1000),
    contract: merchantArb.map(({ maxWithdrawal: _, ...contract }) => contract),
  }) },
);

export interface PlanShape {
  merchants: { min: number; max: number };
  batches: number;
  batchSize: { min: number; max: number };
  /** Direct payment notifications need the core in this process (not over HTTP). */
  notify: boolean;
}

export function planArb(shape: PlanShape): fc.Arbitrary<Plan> {
  return fc.record({
    merchants: fc.array(merchantArb, { minLength: shape.merchants.min, maxLength: shape.merchants.max }),
    batches: fc.array(fc.array(opArb(shape), { minLength: shape.batchSize.min, maxLength: shape.batchSize.max }), {
      minLength: shape.batches, maxLength: shape.batches,
    }),
    simPayoutDelayMs: fc.integer({ min: 5, max: 600 }),
    simRefundDelayMs: fc.integer({ min: 5, max: 600 }),
  });
}

/** CHAOS_SEED when given (a replay), else a fresh one. */
export function chaosSeed(): number {
  const given = process.env.CHAOS_SEED;
  if (given !== undefined && given !== '') {
    if (!/^-?\d+$/.test(given)) throw new Error('CHAOS_SEED must be an integer');
    return Number(given);
  }
  return randomInt(0, 2 ** 31 - 1);
}

export const draw = <T>(arb: fc.Arbitrary<T>, seed: number): T => fc.sample(arb, { seed, numRuns: 1 })[0]!;
