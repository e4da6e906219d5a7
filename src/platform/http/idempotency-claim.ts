import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Executor, TransactionHook, Tx } from '../db.js';
import { AppError, errorBody } from '../errors.js';
import { ok } from './envelope.js';
import { answerClaim, beatProcess, deleteClaim, endProcess, findAnswer, insertClaim, type KeyRow, type StoredAnswer } from './idempotency.sql.js';

// Answers that describe the request rather than the work are not stored, so a corrected retry works.
export const NOT_STORED = new Set(['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'IDEMPOTENCY_CONFLICT']);
export const inProgress = () => new AppError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key: a request with this key is still in progress');

/** What a claim needs of the request's scope (IdempotencyScope in idempotency.ts). */
interface ClaimScope extends KeyRow {
  readonly process: ClaimProcess;
  readonly hash: string;
  readonly status: number;
  readonly options: { redact?: (data: unknown) => unknown };
  replayOrConflict(stored: StoredAnswer): Promise<Error | null>;
}

/**
 * docs/contract/http.md#idempotency-claims: a command that calls the PSP claims its Idempotency-Key in a statement of its own, makes
 * the call holding no connection, then writes its work and its answer in one short transaction. The claim
 * row (no answer yet, a claim id) makes a duplicate meanwhile IDEMPOTENCY_CONFLICT, as the advisory lock of
 * a one-transaction command does; only the request holding the claim id can store the answer, so a request
 * whose claim was taken over (its process looked dead) rolls its work back instead of committing it twice.
 *
 * A claim never outlives its request: a request that fails frees it (ClaimProcess.release), retrying until
 * the database answers when the failure was the database itself; a process that dies stops beating
 * (ClaimProcess), and within PROCESS_SILENT_AFTER_S its claims may be taken over.
 */

/** How often a process writes its heartbeat: a few beats fit in PROCESS_SILENT_AFTER_S, so a slow one is no death. */
const CLAIM_BEAT_MS = 1_000;
/** How often a failed request tries again to free its claim while the database does not answer. */
const RELEASE_RETRY_MS = 250;

/**
 * This process as the holder of claims: it beats while it runs, so other processes know its claims are live,
 * and frees the claims its failed requests left, retrying while the database is away (a failover, a
 * restart) so a retry is served as soon as it is back.
 */
export class ClaimProcess {
  readonly id = randomBytes(12).toString('base64url');
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {}

  /** The first beat is awaited (a claim of a process without a heartbeat would look dead); a database away now is no error. */
  async start(): Promise<void> {
    const beat = () => beatProcess(this.pool, this.id).catch(() => {});
    await beat();
    this.timer = setInterval(beat, CLAIM_BEAT_MS).unref();
  }

  /** Stops beating and removes the heartbeat: claims left behind are released at once, not after the silence. */
  async stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await endProcess(this.pool, this.id).catch(() => {});
  }

  /**
   * Frees a failed request's claim: once, awaited, so the answer leaves with the key free again; if the
   * database does not answer, again every RELEASE_RETRY_MS in the background until it does (or the
   * process closes, which releases it through its heartbeat).
   */
  async release(claim: KeyRow & { claimId: string }): Promise<void> {
    const attempt = () => deleteClaim(this.pool, claim).then(() => true, () => false);
    if (await attempt()) return;
    void (async () => {
      while (!this.closed) {
        await new Promise((r) => setTimeout(r, RELEASE_RETRY_MS).unref());
        if (this.closed || (await attempt())) return;
      }
    })();
  }
}

/** Answers stored under the key (docs/contract/http.md#idempotency): business rejections, not validation, auth or 5xx. */
const storable = (err: unknown): err is AppError => err instanceof AppError && !NOT_STORED.has(err.code) && err.statusCode < 500;

export interface Claimable {
  claim(pool: pg.Pool): Promise<ClaimedKey>;
}

export class ClaimedKey implements TransactionHook<unknown> {
  /** An answer was written: alone (committed), or in the command's transaction (committed only if its COMMIT was). */
  private answerWritten = false;

  constructor(private readonly scope: ClaimScope, private readonly claimId: string) {}

  async begin(tx: Tx): Promise<void> {
    await tx.query('SAVEPOINT idempotency');
  }

  async beforeCommit(tx: Tx, result: unknown): Promise<void> {
    const data = this.scope.options.redact ? this.scope.options.redact(result) : result;
    await this.answer(tx, this.scope.status, ok(data));
  }

  async onFailure(tx: Tx, error: unknown): Promise<boolean> {
    if (!storable(error)) return false;
    await tx.query('ROLLBACK TO SAVEPOINT idempotency');
    await this.answer(tx, error.statusCode, errorBody(error));
    return true;
  }

  /**
   * The command failed: store its answer when it is one to keep, else free the key for a retry — also when
   * storing fails, since the work it describes did not commit either. An answer written in the command's
   * transaction counts only if that COMMIT did, and a failover cuts COMMITs (the primary stops: the
   * transaction is gone, the claim committed before it stays), so the claim is released then too; the
   * delete matches only a claim still without an answer, and leaves one whose answer did commit alone.
   */
  async settleFailure(pool: pg.Pool, error: unknown): Promise<void> {
    if (!this.answerWritten && storable(error) && (await this.answer(pool, error.statusCode, errorBody(error)).then(() => true, () => false))) return;
    await this.scope.process.release({ ...this.keyRow(), claimId: this.claimId });
  }

  private keyRow(): KeyRow {
    return { merchantId: this.scope.merchantId, callerId: this.scope.callerId, key: this.scope.key };
  }

  private async answer(db: Executor, status: number, body: unknown): Promise<void> {
    const answered = await answerClaim(db, { ...this.keyRow(), claimId: this.claimId, status, body });
    if (!answered) throw inProgress(); // taken over by a retry: that one does the work
    this.answerWritten = true;
  }
}

/**
 * The claim's insert, which may fail after it committed: a failover cuts the connection of a commit waiting
 * for the standby, which already has it, so the claim is there though the request never saw it. Nothing
 * would ever free it — its process lives and beats — and every retry would be IDEMPOTENCY_CONFLICT. So an
 * insert that fails is released like a failed request's claim: the claim id is this attempt's own, and
 * deleting it when the insert did not commit deletes nothing.
 */
async function insertClaimOrRelease(pool: pg.Pool, scope: ClaimScope, claim: Parameters<typeof insertClaim>[1]): Promise<boolean> {
  try {
    return await insertClaim(pool, claim);
  } catch (err) {
    await scope.process.release(claim);
    throw err;
  }
}

/** Claims the key, or throws the replay or conflict that what is stored under it means. */
export async function claimKey(pool: pg.Pool, scope: ClaimScope): Promise<ClaimedKey> {
  const claimId = randomBytes(12).toString('base64url');
  const claim = { merchantId: scope.merchantId, callerId: scope.callerId, key: scope.key, hash: scope.hash, claimId, processId: scope.process.id };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await insertClaimOrRelease(pool, scope, claim)) return new ClaimedKey(scope, claimId);
    const stored = await findAnswer(pool, scope);
    const outcome = stored && (await scope.replayOrConflict(stored));
    if (outcome) throw outcome;
  }
  throw inProgress();
}

/**
 * Runs a command that calls the PSP under an optional Idempotency-Key: `run` makes the call outside any
 * transaction and passes the hook to the transaction that writes the result.
 */
export async function withClaim<T>(pool: pg.Pool, key: Claimable | undefined, run: (hook?: TransactionHook<T>) => Promise<T>): Promise<T> {
  if (!key) return run();
  const claim = await key.claim(pool);
  try {
    return await run(claim);
  } catch (err) {
    await claim.settleFailure(pool, err);
    throw err;
  }
}
