import { check } from './check.js';
import type { Op } from './ops-support.js';
import type { OpResolver } from './workload.js';

/**
 * The operator changes a merchant's contract. Charges keep the fee quoted at their creation (the model
 * keeps each charge's own fee and net), withdrawals take the fee in force when requested.
 */
const contract: OpResolver = (ctx, spec, claims) => {
  const op = spec as Op<'contract'>;
  const ms = ctx.model.merchants;
  const m = ms[op.m % ms.length]!;
  if (claims.merchants.has(m) || claims.creating.has(m)) return null;
  claims.merchants.add(m);
  return {
    label: `contract ${m.index} ${JSON.stringify(op.contract)}`, kind: 'contract', touches: [],
    run: async () => {
      // A PATCH sets values: sent again after a lost answer, it changes nothing more.
      let r = await ctx.client.admin('PATCH', `/admin/merchants/${m.id}`, op.contract);
      for (let i = 0; i < 20 && r.status === 0; i++) r = await ctx.client.admin('PATCH', `/admin/merchants/${m.id}`, op.contract);
      check(r.status === 200, 'contract change', r.status, r.body);
      for (const [k, v] of Object.entries(op.contract)) check(r.body.data[k] === v, `contract ${k}`, r.body.data);
      Object.assign(m, op.contract);
      ctx.outcome('contract', 'changed');
    },
  };
};

export const merchantOps: Record<string, OpResolver> = { contract };
