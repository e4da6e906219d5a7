// Architecture rule 11: every query a merchant can trigger filters by merchant_id, so one merchant can never
// reach another's rows and the schema can be sharded by merchant_id (docs/deployment.md, Citus). Every SQL
// statement in the files that hold SQL is scanned; one that touches a table carrying merchant_id must name
// merchant_id, or be an explicit exception below, with the reason. A new unfiltered statement fails here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { createTestContext, type TestContext } from '../support/context.js';

/**
 * `file#function` → why that function's statements need no merchant_id filter. Kinds of reasons:
 * - worker: run by a background job on an id the job itself was given (never from a merchant's input);
 * - admin: the operator API or CLI, across merchants by design;
 * - auth: resolves WHO the merchant is (by a key hash or a session id), so it cannot filter by it yet;
 * - provider: a PSP notification or the simulator, identified by the provider's own id (txid, e2e id);
 * - public: a public page (no credentials, docs/contract/checkouts.md#payment-page) reads by the unguessable id in
 *   its path (docs/contract/http.md#ids), before any merchant is known;
 * - scoped: the statement is keyed by rows already proven to be the merchant's (a primary key read in
 *   the same transaction after a merchant-filtered lock, or a join through a merchant-filtered row).
 */
const EXCEPTIONS: Record<string, string> = {
  'src/auth/api-key.sql.ts#touchApiKey': 'auth: the key just resolved by its hash, by its own id',
  'src/branding/branding.sql.ts#selectLogo': 'public: GET /pay/logos/{id}, a logo by its own unguessable id',
  'src/charges/charge-view.sql.ts#view': 'fragment: every query built on it adds c.merchant_id = $n (null only on the worker, provider and operator paths)',
  'src/charges/charge.sql.ts#selectSplits': 'scoped: splits of a charge locked with the merchant filter in the same transaction (or by the worker)',
  'src/charges/charge.sql.ts#payCharge': "provider: the charge a payment names, read just before by txid (a PSP) or by id (the simulator; merchant-filtered on a merchant's route)",
  'src/charges/charge.sql.ts#setChargeStatus': 'scoped: the charge was locked by lockCharge (merchant-filtered on merchant routes) in the same transaction',
  'src/charges/charge.sql.ts#enqueueDueExpiries': 'worker: the expiry sweep over every merchant',
  'src/disputes/dispute.sql.ts#selectDispute': 'admin: disputes are opened and resolved by the operator, the simulator or the PSP',
  'src/disputes/dispute.sql.ts#resolveDisputeRow': 'admin: as selectDispute',
  'src/events/event.sql.ts#deleteEventsBefore': 'worker: retention over every merchant',
  'src/ledger/ledger.ts#lockBalance': 'scoped: a ledger account id is `<merchant id>:<kind>`, it names its merchant',
  'src/ledger/verify.ts#verifyLedger': 'the books\' own check over every account: entries without their account or transaction',
  'src/public-pages/pages.sql.ts#selectPayStatus': "public: GET /pay/{id}/status, its event stream and the simulate button, by the checkout's unguessable id",
  'src/refunds/refund.sql.ts#selectPendingRefundRequest': 'worker: the refund request job on its own refund id',
  'src/refunds/refund.sql.ts#enqueuePendingRefundRequests': 'worker: the recovery sweep at worker start',
  'src/unmatched/unmatched.sql.ts#insertUnmatched': 'provider: a received PIX that matches no merchant by definition',
  'src/unmatched/unmatched.sql.ts#selectKnownEndToEndIds': 'provider: reconciliation of the PSP list of received PIX',
  'src/subscriptions/subscription.sql.ts#VIEW': 'fragment: every query built on it adds s.merchant_id = $n (null only on the worker, provider and simulator paths)',
  'src/subscriptions/subscription.sql.ts#selectSubscription': "worker: a job's (or the provider's) own subscription id",
  'src/subscriptions/subscription.sql.ts#selectSubscriptionIdByRef': 'provider: a PSP notification names the recurrence by its idRec',
  'src/subscriptions/subscription.sql.ts#markAuthorized': 'scoped: the subscription locked by lockSubscription in the same transaction',
  'src/subscriptions/subscription.sql.ts#markEnded': 'scoped: as markAuthorized',
  'src/subscriptions/subscription.sql.ts#setNextCycle': 'scoped: as markAuthorized',
  'src/subscriptions/subscription.sql.ts#selectIssueDue': 'worker: the subscriptions sweep over every merchant',
  'src/subscriptions/subscription.sql.ts#selectAuthorizationOverdue': 'worker: the subscriptions sweep over every merchant',
  'src/subscriptions/subscription.sql.ts#selectEnding': 'worker: the subscriptions sweep over every merchant',
  'src/subscriptions/subscription.sql.ts#lockCycle': 'scoped: a cycle of the subscription locked (merchant-filtered on merchant routes) just before',
  'src/subscriptions/subscription.sql.ts#selectCycle': 'worker: a cycle of the subscription its job or request already holds',
  'src/subscriptions/subscription.sql.ts#selectCycleOfCharge': "scoped: the cycle of a charge the caller found (a simulator control or the provider's debit)",
  'src/subscriptions/subscription.sql.ts#selectAwaitingRefs': 'worker: the provider sweep over every merchant',
  'src/subscriptions/subscription.sql.ts#selectDueUnpaidTxids': 'worker: the provider sweep over every merchant',
  'src/subscriptions/subscription.sql.ts#selectCycleByTxid': "provider: the payer's bank names a cycle's charge by its txid",
  'src/subscriptions/subscription.sql.ts#lockCycleOfCharge': 'scoped: after the charge was locked in the same transaction',
  'src/subscriptions/subscription.sql.ts#linkCycleCharge': 'scoped: the cycle locked by lockCycle in the same transaction',
  'src/subscriptions/subscription.sql.ts#abandonCycle': 'scoped: as linkCycleCharge',
  'src/subscriptions/subscription.sql.ts#selectUnissuedCycles': 'worker: the claims of the issue job\'s own subscription',
  'src/subscriptions/subscription.sql.ts#selectSubscriptionsWithUnissued': 'worker: the subscriptions sweep over every merchant',
  'src/subscriptions/subscription.sql.ts#selectCycles': "scoped: the cycles of a subscription locked in the same transaction (or the worker's own)",
  'src/subscriptions/subscription.sql.ts#selectUnpaidCycleTxids': 'worker: the provider-cancel job of its own subscription',
  'src/subscriptions/subscription.sql.ts#appendAttempt': 'scoped: the cycle of a charge locked in the same transaction',
  'src/subscriptions/subscription.sql.ts#setCycleFailed': 'scoped: as appendAttempt',
  'src/user/user.sql.ts#selectUserById': "auth: the session's own user (the JWT sub, checked against its session row)",
  'src/user/user.sql.ts#selectUserByEmail': 'auth: login, before any merchant is known (an e-mail is unique platform-wide)',
  'src/user/user.sql.ts#updateUserRole': 'scoped: after lockForChange selected the user with the merchant filter, same transaction',
  'src/user/user.sql.ts#deleteUser': 'scoped: as updateUserRole',
  'src/user/user.sql.ts#setPassword': "auth: the caller's own user, or an invitation's",
  'src/user/user.sql.ts#touchLastLogin': 'auth: login of the user found by e-mail',
  'src/user/user.sql.ts#useTotpStep': 'auth: as touchLastLogin',
  'src/user/user.sql.ts#setPendingTotp': "auth: the session's own user",
  'src/user/user.sql.ts#setTotpEnabled': "auth: the session's own user",
  'src/user/user.sql.ts#selectInvitedUser': 'auth: an invitation token, before any session exists',
  'src/events/event-fanout.sql.ts#countsMoved': 'scoped: the events of the pairs its own statement just changed (a fragment of recordAttempts or newSeries)',
  'src/webhooks/delivery.sql.ts#recordAttempts': "worker: the endpoints of the attempts it claimed (the statement's first part names merchant_id; this is its lane part)",
  'src/webhooks/webhook-ops.sql.ts#newSeries': "scoped: the pairs its caller's condition selected by merchant_id (START_SERIES, RESTART_FAILED)",
  'src/webhooks/delivery.sql.ts#moveToSlowLane': 'worker: as recordAttempts',
  'src/webhooks/delivery.sql.ts#handOverJob': "worker: an older release's delivery job, on its own event and endpoint",
  'src/webhooks/delivery.sql.ts#queueNextDrain': "worker: a drain job's own endpoint",
  'src/webhooks/delivery.sql.ts#queueOverdueDrains': 'worker: the drain sweep over every merchant',
  'src/webhooks/delivery.sql.ts#selectDeliveryBacklog': 'operator: /metrics, over every merchant',
  'src/webhooks/webhook.sql.ts#fillMissingSecret': "worker: a delivery job's own endpoint",
  'src/withdrawals/withdrawal.sql.ts#lockWithdrawal': 'worker: payout processing on the withdrawal id its job was given (also operator/simulator settlement)',
  'src/withdrawals/withdrawal.sql.ts#updateToProcessing': 'worker: as lockWithdrawal',
  'src/withdrawals/withdrawal.sql.ts#selectWithdrawal': "worker: as lockWithdrawal (also a PSP's report of a payout, by the id we sent it)",
  'src/withdrawals/withdrawal.sql.ts#startFirstSend': 'worker: as lockWithdrawal',
  'src/withdrawals/withdrawal.sql.ts#settleWithdrawal': 'worker: as selectWithdrawal',
  'src/withdrawals/withdrawal.sql.ts#selectStuckWithdrawalIds': 'worker: the recovery sweep over every merchant',
};

const SQL_DIRS = ['src'];
const isSqlFile = (rel: string) => /\.sql\.ts$/.test(rel) || rel.startsWith('src/ledger/') || rel === 'src/platform/jobs.ts';

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Top-level declarations of a file with their text: `export async function f(`, `const f =`, `function f(`. */
function declarations(source: string): Array<{ name: string; text: string }> {
  const starts = [...source.matchAll(/^(?:export )?(?:async )?(?:function\*? (\w+)|const (\w+)\s*[:=])/gm)];
  return starts.map((m, i) => ({ name: (m[1] ?? m[2])!, text: source.slice(m.index, starts[i + 1]?.index ?? source.length) }));
}

/** String and template literals that look like SQL statements. */
function statements(text: string): string[] {
  const literals = [...text.matchAll(/`([^`]*)`|'((?:[^'\\\n]|\\.)*)'/g)].map((m) => m[1] ?? m[2] ?? '');
  return literals.filter((s) => /\b(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM)\b/.test(s) && /\b(FROM|INTO|UPDATE|SET|JOIN)\b/i.test(s));
}

/** Tables a statement reads or writes. */
const tablesOf = (sql: string) =>
  new Set([...sql.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)\b/gi)].map((m) => m[1]!.toLowerCase()));

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

it('every statement on a tenant table names merchant_id, or is an explained exception', async () => {
  const { rows } = await t.pool.query<{ table_name: string }>(
    `SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'merchant_id'`);
  const tenant = new Set(rows.map((r) => r.table_name));
  expect(tenant.size).toBeGreaterThan(5);

  const unfiltered: string[] = [];
  const used = new Set<string>();
  for (const dir of SQL_DIRS) {
    for (const path of files(join(PROJECT_ROOT, dir))) {
      const rel = relative(PROJECT_ROOT, path);
      if (!isSqlFile(rel)) continue;
      for (const decl of declarations(readFileSync(path, 'utf8'))) {
        const id = `${rel}#${decl.name}`;
        for (const sql of statements(decl.text)) {
          const touched = [...tablesOf(sql)].filter((table) => tenant.has(table));
          if (!touched.length || /\bmerchant_id\b/.test(sql)) continue;
          if (EXCEPTIONS[id]) used.add(id);
          else unfiltered.push(`${id}: ${touched.join(', ')}: ${sql.replace(/\s+/g, ' ').slice(0, 140)}`);
        }
      }
    }
  }
  expect(unfiltered).toEqual([]);
  // An exception whose statement is gone (or now filters) is removed from the list.
  expect(Object.keys(EXCEPTIONS).filter((id) => !used.has(id))).toEqual([]);
});
