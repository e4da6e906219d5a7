import { randomUUID } from 'node:crypto';
import { check, checkRejected, code } from './check.js';
import type { CallResult } from './client.js';
import type { MWithdrawal } from './model.js';
import type { Op } from './ops-support.js';
import { choose, type Claims, type Ctx, type OpResolver, type Resolved } from './workload.js';

const SIM_FAIL_REASON = 'Payout rejected by the receiving institution';
const MAX_AMOUNT = 100_000_000;

function withdraw(ctx: Ctx, op: Op<'withdraw'>, claims: Claims): Resolved | null {
  const ms = ctx.model.merchants;
  const m = ms[op.m % ms.length]!;
  if (claims.merchants.has(m)) return null;
  claims.merchants.add(m);
  const inFlight = ctx.model.inFlight(m).length > 0;
  const lo = ctx.lower(m);
  const amount = Math.min(MAX_AMOUNT, Math.max(50, (lo * op.percent - ((lo * op.percent) % 100)) / 100));
  const total = amount + m.withdrawalFeeFixed;
  const key = op.failKey
    ? { pixKey: `chaos.${randomUUID().slice(0, 8)}@fail.test`, pixKeyType: 'EMAIL' }
    : { pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' };
  const body = { amount, ...key };
  return {
    label: `withdraw ${m.index} ${amount}+${m.withdrawalFeeFixed}${op.failKey ? ' fail.test' : ''} ${op.dup}`, kind: 'withdraw', touches: [m],
    run: async (strong) => {
      const first = ctx.key();
      const keys = op.dup === 'none' ? [first] : op.dup === 'same-key' ? [first, first] : [first, ctx.key()];
      const replies: CallResult[] = await Promise.all(keys.map((k) => ctx.client.merchant(m.key, 'POST', '/withdrawals', body, k)));
      const created = replies.filter((r) => r.status === 201);
      const ids = new Set<string>(created.map((r) => r.body.data.id));
      // Two keys, one retried after its answer was lost: it may have run after the other had settled.
      const retried = replies.some((r) => r.uncertain);
      check(ids.size <= 1 || (retried && op.dup === 'other-key'), `two withdrawals at once for merchant ${m.id}`, replies.map((r) => r.body));
      const allowed = ['WITHDRAWAL_IN_PROGRESS', 'INSUFFICIENT_BALANCE', 'VALIDATION_ERROR', ...(op.dup === 'same-key' ? ['IDEMPOTENCY_CONFLICT'] : [])];
      for (const r of replies) if (r.status !== 201) checkRejected(r, allowed, 'withdrawal refused');
      const codes = replies.filter((r) => r.status !== 201).map(code);
      if (!inFlight && op.dup !== 'other-key') check(!codes.includes('WITHDRAWAL_IN_PROGRESS'), 'in progress, but none was', replies.map((r) => r.body));
      if (!inFlight && strong) {
        const rejections = replies.filter((r) => r.status !== 201 && code(r) !== 'IDEMPOTENCY_CONFLICT');
        if (amount > m.maxWithdrawal) {
          check(created.length === 0, 'withdrawal over maxWithdrawal accepted', created[0]?.body);
          for (const r of rejections) checkRejected(r, ['VALIDATION_ERROR'], 'over maxWithdrawal', `amount: must be <= ${m.maxWithdrawal}`);
        } else if (lo >= total) {
          check(created.length >= 1, `withdrawal of ${total} refused with ${lo} available`, replies.map((r) => r.body));
          // Unless one was retried after losing its answer: the other may have settled by then.
          if (op.dup === 'other-key' && !replies.some((r) => r.uncertain)) {
            check(codes.includes('WITHDRAWAL_IN_PROGRESS'), 'the second of two is in progress', replies.map((r) => r.body));
          }
        } else if (ctx.upper(m) < total) {
          check(created.length === 0, `withdrawal of ${total} accepted with at most ${ctx.upper(m)} available`, created[0]?.body);
          for (const r of rejections) checkRejected(r, ['INSUFFICIENT_BALANCE'], 'short of balance', `Insufficient available balance for merchant ${m.id}`);
        }
      }
      if (!created.length) return ctx.outcome('withdraw', codes[0] ?? 'refused');
      for (const id of ids) {
        const data = created.find((r) => r.body.data.id === id)!.body.data;
        check(data.amount === amount && data.fee === m.withdrawalFeeFixed && data.status === 'PENDING' && data.description === null,
          'created withdrawal', data, m.withdrawalFeeFixed);
        check(amount <= m.maxWithdrawal, 'a withdrawal over maxWithdrawal was accepted', data, m.maxWithdrawal);
        ctx.model.withdrawals.push({
          id, merchant: m, amount, fee: data.fee, failKey: op.failKey, final: null, expect: op.failKey ? 'FAILED' : 'COMPLETED',
        });
      }
      ctx.outcome('withdraw', `${ids.size > 1 ? 'two (one retried late): ' : ''}created${op.failKey ? ' (fail.test)' : ''}`);
    },
  };
}

function payoutSettle(ctx: Ctx, op: Op<'payoutSettle'>, claims: Claims): Resolved | null {
  const free = (w: MWithdrawal) => !claims.withdrawals.has(w) && !claims.merchants.has(w.merchant);
  const all = ctx.model.withdrawals;
  const chosen = choose(op.pick, all.filter((w) => w.final === null), all.filter((w) => w.final !== null), free);
  if (!chosen) return null;
  const w = chosen.target;
  claims.withdrawals.add(w);
  claims.merchants.add(w.merchant);
  const reason = op.outcome === 'fail' && op.pick % 2 ? 'chaos: account closed' : undefined;
  // docs/contract/operator.md#simulator: a payout to a fail.test key always fails, even when driven to complete.
  const status = op.outcome === 'fail' || w.failKey ? 'FAILED' : 'COMPLETED';
  return {
    label: `payout ${op.outcome} ${w.id}`, kind: 'payoutSettle', touches: [w.merchant],
    run: async () => {
      const r = await ctx.client.admin('POST', `/admin/simulator/withdrawals/${w.id}/${op.outcome}`, reason ? { reason } : undefined);
      if (r.status === 200) {
        const d = r.body.data;
        check(chosen.primary, `settled withdrawal ${w.id} settled again`, d);
        check(d.id === w.id && d.status === status, `payout ${op.outcome} answer`, d);
        if (status === 'COMPLETED') check(typeof d.end2endId === 'string' && d.completedAt && d.failedReason === null, 'completed payout', d);
        else check(d.failedReason === (op.outcome === 'fail' ? reason ?? SIM_FAIL_REASON : SIM_FAIL_REASON) && d.end2endId === null, 'failed payout', d);
        w.final = status;
        w.expect = status;
        return ctx.outcome('payoutSettle', `${op.outcome} answered`);
      }
      checkRejected(r, ['INVALID_STATE'], 'settle a settled payout');
      // Refused because the network settled it: its result may still be on its way to the withdrawal.
      let now = await ctx.getWithdrawal(w);
      const isFinal = () => now.status === 'COMPLETED' || now.status === 'FAILED';
      for (let i = 0; i < (ctx.client.faults ? 10 : 100) && r.status !== 0 && !isFinal(); i++) {
        await new Promise((res) => setTimeout(res, 50));
        now = await ctx.getWithdrawal(w);
      }
      const final = isFinal();
      if (r.status !== 0) {
        // Refused: the network had settled it on its own, so it ends with that outcome. Its result
        // reaches the withdrawal at once, unless the process died in between (then the sweep brings it).
        check(final || ctx.client.faults, `payout control refused while ${now.status}`, r.body, now);
        if (final) check(w.expect === 'EITHER' || now.status === w.expect, `withdrawal ${w.id} settled ${now.status}, expected ${w.expect}`, now);
      } else if (final) {
        check(now.status === w.expect || now.status === status, `withdrawal ${w.id} is ${now.status}`, now);
        w.expect = 'EITHER';
      }
      if (final) w.final = now.status;
      ctx.outcome('payoutSettle', r.status === 0 ? `lost: ${now.status}` : 'already settled');
    },
  };
}

export const withdrawalOps: Record<string, OpResolver> = {
  withdraw: (ctx, op, claims) => withdraw(ctx, op as Op<'withdraw'>, claims),
  payoutSettle: (ctx, op, claims) => payoutSettle(ctx, op as Op<'payoutSettle'>, claims),
};
