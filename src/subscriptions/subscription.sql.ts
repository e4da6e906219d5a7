import type { Attempt } from '../charges/charge.schemas.js';
import type { Executor, Tx } from '../platform/db.js';
import type { EndedBy, Journey, SubscriptionStatus } from './subscription.schemas.js';
import type { Frequency, RetryPolicy } from './cycle.rules.js';

/** A subscriptions row; dates as `YYYY-MM-DD`. */
export interface SubscriptionRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  status: SubscriptionStatus;
  journey: Journey;
  amount: number | null;
  min_amount: number | null;
  frequency: Frequency;
  start_date: string;
  end_date: string | null;
  last_due_date: string | null;
  contract: string;
  description: string | null;
  retry_policy: RetryPolicy;
  br_code: string | null;
  first_charge_id: string | null;
  payer_ispb: string | null;
  payer_branch: string | null;
  payer_account: string | null;
  expires_at: Date;
  provider_ref: string | null;
  next_cycle: number;
  next_issue_on: string | null;
  created_at: Date;
  authorized_at: Date | null;
  ended_at: Date | null;
  ended_by: EndedBy | null;
}

/** The row and its customer, as the API shows a subscription. */
export interface SubscriptionViewRow extends SubscriptionRow {
  cu_name: string | null;
  cu_tax_id: string | null;
  cu_email: string;
}

export type NewSubscription = Omit<SubscriptionRow,
  'status' | 'next_cycle' | 'next_issue_on' | 'created_at' | 'authorized_at' | 'ended_at' | 'ended_by'>;

const COLUMNS = `s.id, s.merchant_id, s.customer_id, s.status, s.journey, s.amount, s.min_amount, s.frequency,
  to_char(s.start_date, 'YYYY-MM-DD') AS start_date, to_char(s.end_date, 'YYYY-MM-DD') AS end_date,
  to_char(s.last_due_date, 'YYYY-MM-DD') AS last_due_date, s.contract, s.description,
  s.retry_policy, s.br_code, s.first_charge_id, s.payer_ispb, s.payer_branch, s.payer_account, s.expires_at, s.provider_ref,
  s.next_cycle, to_char(s.next_issue_on, 'YYYY-MM-DD') AS next_issue_on, s.created_at, s.authorized_at, s.ended_at, s.ended_by`;

// A deleted customer still shows on its subscriptions, as on its charges: the subscription records who pays.
const VIEW = `SELECT ${COLUMNS}, cu.name AS cu_name, cu.tax_id AS cu_tax_id, cu.email AS cu_email
  FROM subscriptions s JOIN customers cu ON cu.id = s.customer_id`;

export async function insertSubscription(tx: Tx, s: NewSubscription): Promise<void> {
  await tx.query(
    `INSERT INTO subscriptions (id, merchant_id, customer_id, journey, amount, min_amount, frequency, start_date, end_date, contract,
       description, retry_policy, br_code, first_charge_id, payer_ispb, payer_branch, payer_account, expires_at, provider_ref, last_due_date)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
    [s.id, s.merchant_id, s.customer_id, s.journey, s.amount, s.min_amount, s.frequency, s.start_date, s.end_date, s.contract,
      s.description, s.retry_policy, s.br_code, s.first_charge_id, s.payer_ispb, s.payer_branch, s.payer_account, s.expires_at, s.provider_ref,
      s.last_due_date],
  );
}

/** `merchantId` null: the worker, the provider or the simulator, which name a subscription by its own id. */
export async function selectSubscriptionView(db: Executor, id: string, merchantId: string | null): Promise<SubscriptionViewRow | undefined> {
  const { rows } = await db.query<SubscriptionViewRow>(`${VIEW} WHERE s.id = $1 AND ($2::text IS NULL OR s.merchant_id = $2)`, [id, merchantId]);
  return rows[0];
}

/** Keyset-pagination query of a merchant's subscriptions. */
export function listSubscriptionsQuery(merchantId: string, f: { status?: SubscriptionStatus }) {
  return {
    sql: `${VIEW} WHERE s.merchant_id = $1 AND ($2::text IS NULL OR s.status = $2)`,
    params: [merchantId, f.status ?? null],
    alias: 's',
  };
}

/**
 * Locks a subscription row. Every command on a subscription takes this lock first, then its cycles, then
 * (through the charge paths) its charges: one order, so they serialise per subscription and never deadlock.
 */
export async function lockSubscription(tx: Tx, id: string, merchantId: string | null): Promise<SubscriptionRow | undefined> {
  const { rows } = await tx.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM subscriptions s WHERE s.id = $1 AND ($2::text IS NULL OR s.merchant_id = $2) FOR UPDATE`, [id, merchantId]);
  return rows[0];
}

/** A subscription row without a lock (the worker and the provider name it by its own id). */
export async function selectSubscription(db: Executor, id: string): Promise<SubscriptionRow | undefined> {
  const { rows } = await db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions s WHERE s.id = $1`, [id]);
  return rows[0];
}

/** The subscription a provider knows by its own id (API Pix idRec). */
export async function selectSubscriptionIdByRef(db: Executor, providerRef: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM subscriptions WHERE provider_ref = $1', [providerRef]);
  return rows[0]?.id;
}

export async function markAuthorized(tx: Tx, id: string, nextIssueOn: string | null): Promise<void> {
  await tx.query(
    `UPDATE subscriptions SET status = 'ACTIVE', authorized_at = now_ms(), next_issue_on = $2 WHERE id = $1`, [id, nextIssueOn]);
}

export async function markEnded(tx: Tx, id: string, status: SubscriptionStatus, endedBy: EndedBy | null): Promise<void> {
  await tx.query(
    `UPDATE subscriptions SET status = $2, ended_at = now_ms(), ended_by = $3, next_issue_on = NULL WHERE id = $1`, [id, status, endedBy]);
}

export async function setNextCycle(tx: Tx, id: string, nextCycle: number, nextIssueOn: string | null): Promise<void> {
  await tx.query('UPDATE subscriptions SET next_cycle = $2, next_issue_on = $3 WHERE id = $1', [id, nextCycle, nextIssueOn]);
}

/** ACTIVE fixed-amount subscriptions whose next cycle is due to be issued by `today` (São Paulo). */
export async function selectIssueDue(db: Executor, today: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM subscriptions WHERE next_issue_on <= $1::date ORDER BY next_issue_on LIMIT $2', [today, limit]);
  return rows.map((r) => r.id);
}

/** CREATED subscriptions past the end of their wait for an authorization. */
export async function selectAuthorizationOverdue(db: Executor, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM subscriptions WHERE status = 'CREATED' AND expires_at <= now() ORDER BY expires_at LIMIT $1`, [limit]);
  return rows.map((r) => r.id);
}

/**
 * ACTIVE subscriptions whose last cycle is due within 2 days (or was due): from then on it can no longer be issued,
 * and it may have been settled — the sweep looks whether they are complete.
 */
export async function selectEnding(db: Executor, today: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM subscriptions WHERE status = 'ACTIVE' AND last_due_date < $1::date + 2 ORDER BY last_due_date LIMIT $2`, [today, limit]);
  return rows.map((r) => r.id);
}

/** Recurrences still waiting for the payer at the provider, oldest first (the provider's sweep asks about them). */
export async function selectAwaitingRefs(db: Executor, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ provider_ref: string }>(
    `SELECT provider_ref FROM subscriptions WHERE status = 'CREATED' AND provider_ref IS NOT NULL ORDER BY expires_at LIMIT $1`, [limit]);
  return rows.map((r) => r.provider_ref);
}

// ---- cycles ----

export interface CycleRow {
  subscription_id: string;
  merchant_id: string;
  cycle: number;
  due_date: string;
  amount: number;
  txid: string;
  charge_id: string | null;
  abandoned: boolean;
  attempts: Attempt[];
  retry_on: string | null;
  failed_reason: string | null;
  claimed_at: Date;
}

const CYCLE_COLUMNS = `subscription_id, merchant_id, cycle, to_char(due_date, 'YYYY-MM-DD') AS due_date, amount, txid, charge_id, abandoned,
  attempts, to_char(retry_on, 'YYYY-MM-DD') AS retry_on, failed_reason, claimed_at`;

/**
 * Claims a cycle: the row is the cycle's one issue. Undefined when the cycle (or its due date) was claimed
 * before — by another process, an earlier run or the merchant — which the primary key decides, whatever races.
 */
export async function insertCycle(
  tx: Tx, c: Pick<CycleRow, 'subscription_id' | 'merchant_id' | 'cycle' | 'due_date' | 'amount' | 'txid'>,
): Promise<CycleRow | undefined> {
  const { rows } = await tx.query<CycleRow>(
    `INSERT INTO subscription_cycles (subscription_id, merchant_id, cycle, due_date, amount, txid) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT DO NOTHING RETURNING ${CYCLE_COLUMNS}`,
    [c.subscription_id, c.merchant_id, c.cycle, c.due_date, c.amount, c.txid],
  );
  return rows[0];
}

export async function lockCycle(tx: Tx, subscriptionId: string, cycle: number): Promise<CycleRow | undefined> {
  const { rows } = await tx.query<CycleRow>(
    `SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE subscription_id = $1 AND cycle = $2 FOR UPDATE`, [subscriptionId, cycle]);
  return rows[0];
}

export async function selectCycle(db: Executor, subscriptionId: string, cycle: number): Promise<CycleRow | undefined> {
  const { rows } = await db.query<CycleRow>(
    `SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE subscription_id = $1 AND cycle = $2`, [subscriptionId, cycle]);
  return rows[0];
}

/** The cycle a charge pays, without a lock (to find its subscription before locking that first). */
export async function selectCycleOfCharge(db: Executor, chargeId: string): Promise<CycleRow | undefined> {
  const { rows } = await db.query<CycleRow>(`SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE charge_id = $1`, [chargeId]);
  return rows[0];
}

/** The charge of the cycle a provider knows by its txid (API Pix cobr). */
export async function selectCycleByTxid(db: Executor, txid: string): Promise<CycleRow | undefined> {
  const { rows } = await db.query<CycleRow>(`SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE txid = $1`, [txid]);
  return rows[0];
}

/** The cycle a charge pays, locked (after its subscription, in the order of lockSubscription). */
export async function lockCycleOfCharge(tx: Tx, chargeId: string): Promise<CycleRow | undefined> {
  const { rows } = await tx.query<CycleRow>(`SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE charge_id = $1 FOR UPDATE`, [chargeId]);
  return rows[0];
}

export async function linkCycleCharge(tx: Tx, subscriptionId: string, cycle: number, chargeId: string): Promise<void> {
  await tx.query('UPDATE subscription_cycles SET charge_id = $3 WHERE subscription_id = $1 AND cycle = $2', [subscriptionId, cycle, chargeId]);
}

export async function abandonCycle(tx: Tx, subscriptionId: string, cycle: number): Promise<void> {
  await tx.query('UPDATE subscription_cycles SET abandoned = true WHERE subscription_id = $1 AND cycle = $2', [subscriptionId, cycle]);
}

/** A subscription's claimed cycles whose charge is not written yet, claimed at least `olderThanMs` ago (its process may have died). */
export async function selectUnissuedCycles(db: Executor, olderThanMs: number, subscriptionId: string): Promise<number[]> {
  const { rows } = await db.query<{ cycle: number }>(
    `SELECT cycle FROM subscription_cycles WHERE subscription_id = $1 AND charge_id IS NULL AND NOT abandoned
       AND claimed_at <= now() - $2::int * interval '1 millisecond' ORDER BY cycle`,
    [subscriptionId, olderThanMs],
  );
  return rows.map((r) => r.cycle);
}

/** The subscriptions with such claims, across merchants (the sweep). */
export async function selectSubscriptionsWithUnissued(db: Executor, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ subscription_id: string }>(
    `SELECT DISTINCT subscription_id FROM subscription_cycles WHERE charge_id IS NULL AND NOT abandoned
       AND claimed_at <= now() - $1::int * interval '1 millisecond' LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => r.subscription_id);
}

/** The cycles of a subscription, oldest first. */
export async function selectCycles(db: Executor, subscriptionId: string): Promise<CycleRow[]> {
  const { rows } = await db.query<CycleRow>(
    `SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE subscription_id = $1 ORDER BY cycle`, [subscriptionId]);
  return rows;
}

/** The txids of cycle charges still PENDING on or after their due date (the provider's sweep asks about them). */
export async function selectDueUnpaidTxids(db: Executor, today: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ txid: string }>(
    `SELECT sc.txid FROM subscription_cycles sc JOIN charges c ON c.id = sc.charge_id
     WHERE sc.due_date <= $1::date AND c.status = 'PENDING' ORDER BY sc.due_date LIMIT $2`, [today, limit]);
  return rows.map((r) => r.txid);
}

/** The txids of a subscription's cycles not paid: claims without a charge, and charges never paid. */
export async function selectUnpaidCycleTxids(db: Executor, subscriptionId: string): Promise<string[]> {
  const { rows } = await db.query<{ txid: string }>(
    `SELECT sc.txid FROM subscription_cycles sc LEFT JOIN charges c ON c.id = sc.charge_id
     WHERE sc.subscription_id = $1 AND c.paid_at IS NULL ORDER BY sc.cycle`, [subscriptionId]);
  return rows.map((r) => r.txid);
}

/** A failed debit attempt, and the day of the next one if a retry was asked for (null: none). */
export async function appendAttempt(tx: Tx, chargeId: string, attempt: Attempt, retryOn: string | null): Promise<void> {
  await tx.query(
    'UPDATE subscription_cycles SET attempts = attempts || jsonb_build_array($2::jsonb), retry_on = $3 WHERE charge_id = $1',
    [chargeId, JSON.stringify(attempt), retryOn],
  );
}

export async function setCycleFailed(tx: Tx, chargeId: string, reason: string): Promise<void> {
  await tx.query('UPDATE subscription_cycles SET failed_reason = $2, retry_on = NULL WHERE charge_id = $1', [chargeId, reason]);
}
