import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { TransactionHook, Tx } from '../db.js';
import { AppError, errorBody } from '../errors.js';
import { ok } from './envelope.js';
import { claimKey, ClaimProcess, inProgress, NOT_STORED, type ClaimedKey } from './idempotency-claim.js';
import { findAnswer, saveAnswer, tryLockKey, type KeyRow, type StoredAnswer } from './idempotency.sql.js';

/**
 * `Idempotency-Key` on POST (docs/contract/http.md#idempotency). A command that runs in one transaction claims the
 * key with a transaction-scoped advisory lock inside that transaction and stores its answer there, so the
 * work and its answer commit together; a duplicate arriving meanwhile cannot take the lock and gets
 * IDEMPOTENCY_CONFLICT at once; one arriving later replays the answer. A command that calls the PSP
 * claims the key first with a row of its own (idempotency-claim.ts, docs/contract/http.md#idempotency-claims), so that no
 * transaction stays open during the call; the claim row answers duplicates the same way.
 */
export interface IdempotencyRouteOptions {
  /** Removes what must never be stored in clear (a webhook secret) from the stored answer. */
  redact?: (data: unknown) => unknown;
  /** Puts it back on replay, from its encrypted store; may throw NOT_FOUND. */
  restore?: (merchantId: string, data: unknown) => Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Success status of the route (201 for creates); the stored answer replays with it. */
    successStatus?: number;
    idempotency?: IdempotencyRouteOptions;
  }
  interface FastifyRequest {
    idempotency?: IdempotencyScope;
  }
}

/** Thrown to answer with a stored response instead of running the command again. */
export class IdempotentReplay extends Error {
  constructor(readonly statusCode: number, readonly body: unknown) {
    super('idempotent replay');
  }
}

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export class IdempotencyScope implements TransactionHook<unknown>, KeyRow {
  constructor(
    readonly merchantId: string,
    /** Whose key it is (docs/contract/http.md#idempotency-scope): the API key's id or the dashboard user's. */
    readonly callerId: string,
    readonly key: string,
    readonly hash: string,
    readonly status: number,
    readonly options: IdempotencyRouteOptions,
    /** This process, which holds the key's claim while a PSP-calling command runs. */
    readonly process: ClaimProcess,
  ) {}

  /** For a command that calls the PSP: the key claimed in a statement of its own (idempotency-claim.ts). */
  claim(pool: pg.Pool): Promise<ClaimedKey> {
    return claimKey(pool, this);
  }

  async begin(tx: Tx): Promise<void> {
    if (!(await tryLockKey(tx, this))) throw inProgress();
    const stored = await findAnswer(tx, this);
    const outcome = stored && (await this.replayOrConflict(stored));
    if (outcome) throw outcome;
    await tx.query('SAVEPOINT idempotency');
  }

  async beforeCommit(tx: Tx, result: unknown): Promise<void> {
    const data = this.options.redact ? this.options.redact(result) : result;
    await this.save(tx, this.status, ok(data));
  }

  async onFailure(tx: Tx, error: unknown): Promise<boolean> {
    if (!(error instanceof AppError) || NOT_STORED.has(error.code) || error.statusCode >= 500) return false;
    await tx.query('ROLLBACK TO SAVEPOINT idempotency');
    await this.save(tx, error.statusCode, errorBody(error));
    return true;
  }

  /** The replay or conflict a stored row means for this request; null for a dead claim, which may be taken over. */
  async replayOrConflict(stored: StoredAnswer): Promise<Error | null> {
    // Whose answer it was is unknown: replaying it could hand another caller a secret, running the work
    // again could do it twice. It keeps its key spent until it expires.
    if (stored.legacy) return new AppError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key: already used before keys were kept per caller; use a new key');
    if (stored.status_code === null && !stored.live) return null;
    if (stored.request_hash !== this.hash) {
      return new AppError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key: already used with a different request');
    }
    if (stored.status_code === null) return inProgress();
    const body = stored.body as { success?: boolean; data?: unknown };
    if (body.success && this.options.restore) return new IdempotentReplay(stored.status_code, ok(await this.options.restore(this.merchantId, body.data)));
    return new IdempotentReplay(stored.status_code, stored.body);
  }

  private async save(tx: Tx, status: number, body: unknown): Promise<void> {
    // An expired answer or a dead claim under the same key is replaced. A live claim can only appear here
    // when a PSP-calling request took the key meanwhile (claims take no advisory lock): that one keeps it.
    if (!(await saveAnswer(tx, { merchantId: this.merchantId, callerId: this.callerId, key: this.key, hash: this.hash, status, body }))) throw inProgress();
  }
}

/** The header in the OpenAPI document, on every POST that a merchant key authenticates. */
export function documentIdempotencyKey(doc: { paths?: object; security?: unknown }): void {
  const parameter = {
    in: 'header', name: 'Idempotency-Key', required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
    description: 'Replays the first answer (status and body) to the same request under the same key for 24 hours; another request with the key, or one while the first still runs, is IDEMPOTENCY_CONFLICT.',
  };
  for (const operations of Object.values(doc.paths ?? {}) as Array<Record<string, Record<string, unknown> | undefined>>) {
    const post = operations.post;
    const security = (post?.security ?? doc.security) as Array<Record<string, unknown>> | undefined;
    const parameters = (post?.parameters ?? []) as Array<{ name?: string }>;
    if (post && security?.[0] && ('apiKey' in security[0] || 'session' in security[0]) && !parameters.some((p) => p.name === parameter.name)) {
      post.parameters = [...parameters, parameter];
    }
  }
}

export function sendReplay(reply: FastifyReply, replay: IdempotentReplay): FastifyReply {
  return reply.code(replay.statusCode).header('idempotent-replayed', 'true').send(replay.body);
}

/**
 * Registers the preHandler that validates the header and replays answers already stored. The request is
 * fingerprinted with an HMAC under `hashKey`, not a plain SHA-256: a stored fingerprint of a body that holds
 * a password (POST /me/password) must not be open to an offline guess. The process beats as the holder of
 * its claims from here until the server closes.
 */
export async function registerIdempotency(app: FastifyInstance, pool: pg.Pool, hashKey: Buffer): Promise<void> {
  const claims = new ClaimProcess(pool);
  await claims.start();
  app.addHook('onClose', () => claims.stop());
  const lookUp = async (req: FastifyRequest, reply: FastifyReply, auth: NonNullable<FastifyRequest['auth']>, raw: string | string[]) => {
    if (typeof raw !== 'string' || !KEY_PATTERN.test(raw)) {
      throw new AppError('VALIDATION_ERROR', 'Idempotency-Key: must be 1 to 255 printable ASCII characters');
    }
    const hash = createHmac('sha256', hashKey)
      .update(JSON.stringify(canonical({ method: req.method, path: req.url.split('?')[0], query: req.query ?? {}, body: req.body ?? null })))
      .digest('hex');
    const config = req.routeOptions.config;
    const caller = auth.caller;
    const callerId = caller.kind === 'apiKey' ? caller.keyId : caller.userId;
    const scope = new IdempotencyScope(auth.merchant.id, callerId, raw, hash, config.successStatus ?? 200, config.idempotency ?? {}, claims);
    const stored = await findAnswer(pool, scope);
    const outcome = stored && (await scope.replayOrConflict(stored));
    if (!outcome) {
      req.idempotency = scope;
      return;
    }
    if (outcome instanceof IdempotentReplay) return sendReplay(reply, outcome);
    throw outcome;
  };
  // A callback hook that returns the lookup's promise only when there is a key to look up: most requests have
  // none, and an async hook would cost each of them a promise and a microtask.
  app.addHook('preHandler', (req, reply, done) => {
    const raw = req.headers['idempotency-key'];
    if (req.method !== 'POST' || !req.auth || raw === undefined) return done();
    return lookUp(req, reply, req.auth, raw);
  });
}
