import { newEndToEndId } from '../../../src/pix/index.js';
import { check, checkRejected, code } from './check.js';
import type { CallResult } from './client.js';
import type { MCharge, MMerchant, MRefund } from './model.js';
import type { OpSpec } from './plan.js';
import { choose, type Claims, type Ctx, type OpResolver, type Resolved } from './workload.js';

type Op<K extends OpSpec['kind']> = Extract<OpSpec, { kind: K }>;

const times = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));
const parties = (c: MCharge): MMerchant[] => [c.merchant, ...c.splits.map((s) => s.recipient)];
const answered = (rs: CallResult[]) => rs.filter((r) => r.status === 200);
const lost = (rs: CallResult[]) => rs.some((r) => r.uncertain && r.status === 0);

/** Picks a charge for `kind`: one of `primary` (preferred), else one of `fallback`; claims it for the batch. */
function pickCharge(ctx: Ctx, claims: Claims, pick: number, primary: (c: MCharge) => boolean, fallback: (c: MCharge) => boolean) {
  const all = ctx.model.charges.filter((c) => !claims.charges.has(c) && ctx.eff(c) !== 'EDGE');
  const chosen = choose(pick, all.filter(primary), all.filter((c) => !primary(c) && fallback(c)), () => true);
  if (chosen) claims.charges.add(chosen.target);
  return chosen;
}

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

function dispute(ctx: Ctx, op: Op<'dispute'>, claims: Claims): Resolved | null {
  const chosen = pickCharge(ctx, claims, op.pick, (c) => c.status === 'PAID', () => true);
  if (!chosen) return null;
  const c = chosen.target;
  const before = ctx.eff(c);
  return {
    label: `dispute ${c.id}${op.dup ? ' x2' : ''}`, kind: 'dispute', touches: [c.merchant],
    run: async (strong) => {
      const replies = await times(op.dup ? 2 : 1, () => ctx.client.admin('POST', `/admin/simulator/charges/${c.id}/dispute`));
      const ok = answered(replies);
      check(ok.length <= 1, `charge ${c.id} disputed twice at once`, replies.map((r) => r.body));
      for (const r of replies) if (r.status !== 200) checkRejected(r, ['INVALID_STATE'], 'dispute refused', before === 'PAID' ? undefined : `Charge is ${before}; only a PAID charge can be disputed`);
      if (before !== 'PAID') return check(ok.length === 0, `dispute of a ${before} charge accepted`, ok[0]?.body);
      check(ok.length === 1 || lost(replies), `dispute of PAID charge ${c.id} refused`, replies.map((r) => r.body));
      let opened: { id: string; blocked: number } | undefined;
      if (ok[0]) {
        const d = ok[0].body.data;
        check(d.chargeId === c.id && d.status === 'OPEN' && d.blockedAmount >= 0 && d.blockedAmount <= c.net, 'dispute answer', d, c.net);
        if (strong) {
          const lo = Math.min(c.net, ctx.lower(c.merchant));
          const hi = Math.min(c.net, ctx.upper(c.merchant));
          check(d.blockedAmount >= lo && d.blockedAmount <= hi, `blockedAmount within [${lo}, ${hi}]`, d);
        }
        opened = { id: d.id, blocked: d.blockedAmount };
      } else {
        const { rows } = await ctx.client.db.query(`SELECT id, blocked_amount FROM disputes WHERE charge_id = $1 AND status = 'OPEN'`, [c.id]);
        if (rows[0]) opened = { id: rows[0].id, blocked: Number(rows[0].blocked_amount) };
      }
      if (opened) {
        c.dispute = { ...opened, status: 'OPEN' };
        c.status = 'DISPUTED';
      }
      ctx.outcome('dispute', opened ? (opened.blocked < c.net ? 'opened, capped' : 'opened') : 'lost, not opened');
    },
  };
}

function resolve(ctx: Ctx, op: Op<'resolve'>, claims: Claims): Resolved | null {
  const chosen = pickCharge(ctx, claims, op.pick, (c) => c.dispute?.status === 'OPEN', (c) => c.rejectedDisputes.length > 0 || c.dispute?.status === 'ACCEPTED');
  if (!chosen) return null;
  const c = chosen.target;
  const id = chosen.primary ? c.dispute!.id : (c.dispute?.id ?? c.rejectedDisputes.at(-1)!);
  const outcomes = op.dup ? [op.outcome, op.outcome === 'ACCEPTED' ? 'REJECTED' : 'ACCEPTED'] : [op.outcome];
  return {
    label: `resolve ${outcomes.join('+')} ${id}`, kind: 'resolve', touches: [c.merchant],
    run: async () => {
      const replies = await Promise.all(outcomes.map((o) => ctx.client.admin('POST', `/admin/simulator/disputes/${id}/resolve`, { outcome: o })));
      const ok = answered(replies);
      check(ok.length <= 1, `dispute ${id} resolved twice`, replies.map((r) => r.body));
      for (const r of replies) if (r.status !== 200) checkRejected(r, ['INVALID_STATE'], 'resolve a resolved dispute', 'Dispute is already resolved');
      if (!chosen.primary) return check(ok.length === 0, `resolved dispute ${id} resolved again`, ok[0]?.body);
      check(ok.length === 1 || lost(replies), `open dispute ${id} not resolved`, replies.map((r) => r.body));
      let outcome: string | undefined;
      if (ok[0]) {
        const d = ok[0].body.data;
        outcome = outcomes[replies.indexOf(ok[0])];
        check(d.id === id && d.status === 'RESOLVED' && d.outcome === outcome && d.blockedAmount === c.dispute!.blocked, 'resolve answer', d);
      } else {
        const { rows } = await ctx.client.db.query(`SELECT status, outcome FROM disputes WHERE id = $1`, [id]);
        if (rows[0]?.status === 'RESOLVED') outcome = rows[0].outcome;
      }
      if (outcome === 'REJECTED') {
        c.rejectedDisputes.push(id);
        c.dispute = null;
        c.status = 'PAID';
      } else if (outcome === 'ACCEPTED') {
        c.dispute!.status = 'ACCEPTED';
        c.status = 'REFUNDED';
      }
      ctx.outcome('resolve', outcome ?? 'lost, still open');
    },
  };
}

export const chargeOps: Record<string, OpResolver> = {
  charge: (ctx, op, claims) => createCharge(ctx, op as Op<'charge'>, claims),
  pay: (ctx, op, claims) => pay(ctx, op as Op<'pay'>, claims),
  notify: (ctx, op, claims) => notify(ctx, op as Op<'notify'>, claims),
  refund: (ctx, op, claims) => refund(ctx, op as Op<'refund'>, claims),
  refundSettle: (ctx, op, claims) => refundSettle(ctx, op as Op<'refundSettle'>, claims),
  dispute: (ctx, op, claims) => dispute(ctx, op as Op<'dispute'>, claims),
  resolve: (ctx, op, claims) => resolve(ctx, op as Op<'resolve'>, claims),
};
