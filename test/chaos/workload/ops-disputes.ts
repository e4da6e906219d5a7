import { check, checkRejected } from './check.js';
import { answered, lost, pickCharge, times, type Op } from './ops-support.js';
import type { Claims, Ctx, OpResolver, Resolved } from './workload.js';

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

export const disputeOps: Record<string, OpResolver> = {
  dispute: (ctx, op, claims) => dispute(ctx, op as Op<'dispute'>, claims),
  resolve: (ctx, op, claims) => resolve(ctx, op as Op<'resolve'>, claims),
};
