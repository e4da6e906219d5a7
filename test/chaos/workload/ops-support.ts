import type { CallResult } from './client.js';
import type { MCharge, MMerchant } from './model.js';
import type { OpSpec } from './plan.js';
import { choose, type Claims, type Ctx } from './workload.js';

export type Op<K extends OpSpec['kind']> = Extract<OpSpec, { kind: K }>;

export const times = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));
export const parties = (c: MCharge): MMerchant[] => [c.merchant, ...c.splits.map((s) => s.recipient)];
export const answered = (rs: CallResult[]) => rs.filter((r) => r.status === 200);
export const lost = (rs: CallResult[]) => rs.some((r) => r.uncertain && r.status === 0);

/** Picks a charge for `kind`: one of `primary` (preferred), else one of `fallback`; claims it for the batch. */
export function pickCharge(ctx: Ctx, claims: Claims, pick: number, primary: (c: MCharge) => boolean, fallback: (c: MCharge) => boolean) {
  const all = ctx.model.charges.filter((c) => !claims.charges.has(c) && ctx.eff(c) !== 'EDGE');
  const chosen = choose(pick, all.filter(primary), all.filter((c) => !primary(c) && fallback(c)), () => true);
  if (chosen) claims.charges.add(chosen.target);
  return chosen;
}
