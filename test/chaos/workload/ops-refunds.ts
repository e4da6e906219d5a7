import { check, checkRejected, code } from './check.js';
import type { MMerchant, MRefund } from './model.js';
import { answered, lost, parties, pickCharge, type Op } from './ops-support.js';
import type { Claims, Ctx, OpResolver, Resolved } from './workload.js';

function refund(ctx: Ctx, op: Op<'refund'>, claims: Claims): Resolved | null {
  const chosen = pickCharge(ctx, claims, op.pick, (c) => c.status === 'PAID', () => true);
  if (!chosen) return null;
  const c = chosen.target;
  const before = ctx.eff(c);
  const foreign = op.foreign && op.pick % 5 === 0 ? ctx.model.merchants.find((m) => m !== c.merchant) : undefined;
  const debits = new Map<MMerchant, number>([[c.merchant, c.amount - ctx.model.splitTotal(c)]]);
  for (const s of c.splits) debits.set(s.recipient, s.amount);
  return {
    label: `refund ${c.id}${op.dup ? ' x2' : ''}${foreign ? ' by another merchant' : ''}`, kind: 'refund', touches: foreign ? [] : parties(c),
    run: async (strong) => {
      const url = `/transparents/refund?id=${c.id}`;
      if (foreign) {
        const r = await ctx.client.merchant(foreign.key, 'POST', url, undefined, ctx.key());
        checkRejected(r, ['NOT_FOUND'], "refund of another merchant's charge", 'Charge not found');
        return ctx.outcome('refund', 'foreign: 404');
      }
      const keys = Array.from({ length: op.dup ? 2 : 1 }, () => (op.replay || ctx.client.alwaysIdempotent ? ctx.key() : undefined));
      const replies = await Promise.all(keys.map((k) => ctx.client.merchant(c.merchant.key, 'POST', url, undefined, k)));
      const ok = answered(replies);
      check(ok.length <= 1, `charge ${c.id} refunded twice`, replies.map((r) => r.body));
      for (const r of replies) {
        if (r.status === 200) continue;
        if (before === 'PAID') checkRejected(r, ['INVALID_STATE', 'INSUFFICIENT_BALANCE'], 'refund refused');
        else checkRejected(r, ['INVALID_STATE'], `refund of a ${before} charge`, `Charge is ${before}; only a PAID charge can be refunded`);
      }
      if (before === 'PAID' && strong) {
        const short = [...debits].filter(([m, d]) => ctx.lower(m) < d);
        if (!short.length) check(ok.length === 1, `refund of ${c.id}: every party covers its debit, yet refused`, replies.map((r) => r.body));
        if ([...debits].some(([m, d]) => ctx.upper(m) < d)) {
          check(ok.length === 0, `refund of ${c.id}: a party cannot cover its debit, yet accepted`, [...debits].map(([m, d]) => [m.id, d, ctx.upper(m)]));
          for (const r of replies) {
            const named = /^Insufficient available balance for merchant (\S+)$/.exec(r.body.message ?? '')?.[1];
            check(short.some(([m]) => m.id === named), 'INSUFFICIENT_BALANCE names a party short of balance', r.body, short.map(([m]) => m.id));
          }
        }
      }
      if (ok[0]) {
        const data = ok[0].body.data;
        const rf = data.refund;
        check(data.status === 'REFUNDED' && rf?.status === 'PENDING' && rf.amount === c.amount && rf.reason === 'MERCHANT' && rf.chargeId === c.id,
          `refund answer for ${c.id}`, data);
        c.liveRefund = { id: rf.id, expect: 'COMPLETED' };
        c.status = 'REFUNDED';
      }
      if (op.replay) {
        for (const [i, r] of replies.entries()) {
          const again = await ctx.client.merchant(c.merchant.key, 'POST', url, undefined, keys[i]);
          check(again.status === r.status && again.replayed && (r.status === 200 ? again.body.data.refund.id === r.body.data.refund.id : code(again) === code(r)),
            'refund replay answers what the first answered', r.body, again.body);
        }
      }
      ctx.outcome('refund', ok.length ? 'accepted' : code(replies[0]!) ?? 'refused');
    },
  };
}

function refundSettle(ctx: Ctx, op: Op<'refundSettle'>, claims: Claims): Resolved | null {
  const chosen = pickCharge(ctx, claims, op.pick, (c) => !!c.liveRefund && !c.liveRefund.known, (c) => !!c.liveRefund || c.failedRefunds.length > 0);
  if (!chosen) return null;
  const c = chosen.target;
  const target: MRefund = chosen.primary ? c.liveRefund! : (c.liveRefund ?? c.failedRefunds.at(-1)!);
  const outcomes = op.dup === 'none' ? [op.outcome] : [op.outcome, op.dup];
  const reason = op.pick % 2 ? 'chaos: the receiving bank refused' : undefined;
  return {
    label: `refund ${outcomes.join('+')} ${target.id}`, kind: 'refundSettle', touches: parties(c),
    run: async () => {
      const replies = await Promise.all(outcomes.map((o) =>
        ctx.client.admin('POST', `/admin/simulator/refunds/${target.id}/${o}`, o === 'fail' && reason ? { reason } : undefined)));
      const ok = answered(replies);
      check(ok.length <= 1, `refund ${target.id} settled twice`, replies.map((r) => r.body));
      for (const r of replies) if (r.status !== 200) checkRejected(r, ['INVALID_STATE'], 'settle a settled refund', /^Refund is (COMPLETED|FAILED); only a PENDING refund can be settled$/);
      if (!chosen.primary) return check(ok.length === 0, `a settled refund ${target.id} settled again`, ok[0]?.body);
      const won = ok[0] ? outcomes[replies.indexOf(ok[0])]! : undefined;
      const data = ok[0]?.body.data ?? (await ctx.checkCharge(c));
      const rf = data.refund;
      check(rf?.id === target.id, `refund ${target.id} is the charge's latest`, data);
      if (won) check(rf.status === (won === 'fail' ? 'FAILED' : 'COMPLETED'), `refund ${won} answer`, data);
      // The simulator settles on its own (COMPLETED): a control that found it settled must find it COMPLETED.
      if (!won && !lost(replies)) check(rf.status === 'COMPLETED', `refund ${target.id} settled on its own`, data);
      if (rf.status === 'FAILED') {
        check(data.status === 'PAID', `a failed refund returns charge ${c.id} to PAID`, data);
        if (won) check(rf.failedReason === (reason ?? 'The provider could not return the payment'), 'failedReason', rf);
        c.failedRefunds.push({ id: target.id, expect: 'FAILED', known: true });
        c.liveRefund = null;
        c.status = 'PAID';
      } else if (rf.status === 'COMPLETED') {
        target.known = true;
      }
      ctx.outcome('refundSettle', won ? `${won} answered` : lost(replies) ? `lost: ${rf.status}` : 'already settled');
    },
  };
}

export const refundOps: Record<string, OpResolver> = {
  refund: (ctx, op, claims) => refund(ctx, op as Op<'refund'>, claims),
  refundSettle: (ctx, op, claims) => refundSettle(ctx, op as Op<'refundSettle'>, claims),
};
