import { newEndToEndId } from '../../../src/pix/index.js';
import { check, checkRejected, code } from './check.js';
import type { MCharge, MMerchant } from './model.js';
import { answered, lost, parties, pickCharge, times, type Op } from './ops-support.js';
import type { Claims, Ctx, OpResolver, Resolved } from './workload.js';

function createCharge(ctx: Ctx, op: Op<'charge'>, claims: Claims): Resolved | null {
  const ms = ctx.model.merchants;
  const m = ms[op.m % ms.length]!;
  // Its fee is quoted from the contract at creation: not while the contract is changing.
  if (claims.merchants.has(m) && !claims.creating.has(m)) return null;
  claims.creating.add(m);
  const others = ms.filter((x) => x !== m);
  const split: { merchantId: string; mode: 'PERCENT' | 'FIXED'; value: number; recipient: MMerchant }[] = [];
  for (const s of op.split) {
    const r = others[s.r % others.length];
    if (!r || split.some((e) => e.recipient === r)) continue;
    split.push({ merchantId: r.id, mode: s.mode, value: s.mode === 'FIXED' ? s.value * 37 : s.value, recipient: r });
  }
  const fee = ctx.model.fee(m, op.amount);
  const shares = split.map((s) => ctx.model.share(op.amount, s));
  const total = shares.reduce((a, b) => a + b, 0);
  const net = op.amount - fee - total;
  const refusal = op.amount < m.minTicket ? `amount: must be >= ${m.minTicket}`
    : net >= 0 ? null
    : split.length === 0 ? `amount: must cover the fee (${fee})` : `split: total ${total} exceeds the amount after fees (${op.amount - fee})`;
  const body = {
    method: 'PIX', amount: op.amount, ...(op.shortExpiry && { expiresIn: 60 }),
    ...(split.length && { split: split.map(({ merchantId, mode, value }) => ({ merchantId, mode, value })) }),
  };
  return {
    label: `charge ${m.index} ${op.amount}${split.length ? ` split ${split.length}` : ''} ${op.idem}`, kind: 'charge', touches: [],
    run: async () => {
      const key = op.idem !== 'none' || ctx.client.alwaysIdempotent ? ctx.key() : undefined;
      const send = () => ctx.client.merchant(m.key, 'POST', '/transparents/create', body, key);
      const replies = op.idem === 'concurrent' ? await times(2, send) : [await send()];
      if (op.idem === 'replay') replies.push(await send());
      if (refusal) {
        // A concurrent duplicate meets the first's claim on the key while the first is still checking.
        for (const r of replies) {
          if (code(r) === 'IDEMPOTENCY_CONFLICT' && op.idem === 'concurrent') continue;
          checkRejected(r, ['VALIDATION_ERROR'], 'charge create refused', refusal);
        }
        return ctx.outcome('charge', 'refused');
      }
      const created = replies.filter((r) => r.status === 201);
      check(created.length >= 1, 'charge create', body, replies.map((r) => r.body));
      check(new Set(created.map((r) => r.body.data.id)).size === 1, 'one charge per Idempotency-Key', replies.map((r) => r.body));
      for (const r of replies) if (r.status !== 201) checkRejected(r, ['IDEMPOTENCY_CONFLICT'], 'concurrent duplicate create');
      if (op.idem === 'replay') check(replies[1]!.replayed, 'replayed create answer', replies[1]!.body);
      const data = created[0]!.body.data;
      check(data.amount === op.amount && data.status === 'PENDING' && data.fee === null && data.netAmount === null, 'created charge', data);
      check(data.split.length === split.length && split.every((s, i) => {
        const e = data.split[i];
        return e.merchantId === s.merchantId && e.mode === s.mode && e.value === s.value && e.amount === shares[i];
      }), 'split shares', split, data.split);
      ctx.model.charges.push({
        id: data.id, merchant: m, amount: op.amount, fee, net, splits: split.map((s, i) => ({ recipient: s.recipient, amount: shares[i]! })),
        expiresAt: Date.parse(data.expiresAt), txid: data.txid, status: 'PENDING', e2e: null,
        liveRefund: null, failedRefunds: [], dispute: null, rejectedDisputes: [],
      });
      ctx.outcome('charge', 'created');
    },
  };
}

function markPaid(c: MCharge, data: any): void {
  check(data.status === 'PAID' && typeof data.end2endId === 'string' && data.paidAt, `charge ${c.id} paid`, data);
  check(data.fee === c.fee && data.netAmount === c.net, `charge ${c.id} fee ${c.fee} and net ${c.net}`, data);
  c.e2e = data.end2endId;
  c.status = 'PAID';
}

function pay(ctx: Ctx, op: Op<'pay'>, claims: Claims): Resolved | null {
  const chosen = pickCharge(ctx, claims, op.pick, (c) => ctx.eff(c) === 'PENDING', () => true);
  if (!chosen) return null;
  const c = chosen.target;
  const before = ctx.eff(c);
  return {
    label: `pay ${c.id}${op.dup ? ' x2' : ''}`, kind: 'pay', touches: parties(c),
    run: async () => {
      const replies = await times(op.dup ? 2 : 1, () => ctx.client.admin('POST', `/admin/simulator/charges/${c.id}/pay`));
      const ok = answered(replies);
      check(ok.length <= 1, `charge ${c.id} paid twice`, replies.map((r) => r.body));
      for (const r of replies) if (r.status !== 200) checkRejected(r, ['INVALID_STATE'], `pay ${before} charge`);
      if (before !== 'PENDING') return check(ok.length === 0, `pay of a ${before} charge answered 200`, ok[0]?.body);
      check(ok.length === 1 || lost(replies), `pay of a PENDING charge ${c.id} refused`, replies.map((r) => r.body));
      const data = ok[0]?.body.data ?? (await ctx.checkCharge(c));
      if (data.end2endId !== null) markPaid(c, data);
      ctx.outcome('pay', ok.length ? 'paid' : data.end2endId ? 'paid (answer lost)' : 'not paid (answer lost)');
    },
  };
}

/** A PSP's notification straight into the core: a repeat, a second PIX to a paid charge, or two identical at once. */
function notify(ctx: Ctx, op: Op<'notify'>, claims: Claims): Resolved | null {
  const send = ctx.client.notify;
  if (!send) return null;
  const chosen = op.mode === 'fresh'
    ? pickCharge(ctx, claims, op.pick, (c) => ctx.eff(c) === 'PENDING', () => false)
    : pickCharge(ctx, claims, op.pick, (c) => c.e2e !== null, () => false);
  if (!chosen) return null;
  const c = chosen.target;
  return {
    label: `notify ${op.mode} ${c.id}`, kind: 'notify', touches: op.mode === 'fresh' ? parties(c) : [],
    run: async () => {
      const e2e = op.mode === 'same' ? c.e2e! : newEndToEndId('99999999', new Date());
      const n = { txid: c.txid, endToEndId: e2e, amount: c.amount, paidAt: new Date(), payer: null };
      const answers = await times(op.mode === 'fresh' ? 2 : 1, () => send(n));
      if (op.mode !== 'fresh') {
        for (const a of answers) check(a.id === c.id && a.end2endId === c.e2e, `repeated notification changed charge ${c.id}`, a);
        return ctx.outcome('notify', `${op.mode}: ignored`);
      }
      for (const a of answers) markPaid(c, a);
      check(c.e2e === e2e, 'duplicate notification: the charge carries its endToEndId', c.e2e, e2e);
      ctx.outcome('notify', 'fresh twice: credited once');
    },
  };
}

export const chargeOps: Record<string, OpResolver> = {
  charge: (ctx, op, claims) => createCharge(ctx, op as Op<'charge'>, claims),
  pay: (ctx, op, claims) => pay(ctx, op as Op<'pay'>, claims),
  notify: (ctx, op, claims) => notify(ctx, op as Op<'notify'>, claims),
};
