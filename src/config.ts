import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface Config {
  readonly port: number;
  readonly host: string;
  /** PUBLIC_URL: where browsers reach this service (invitation links, the dashboard URL); default the listen address. */
  readonly publicUrl: string;
  /** null: run the embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly adminToken: string;
  /** 32 bytes: AES-256-GCM key for secrets at rest; cursor and other HMAC keys are derived from it. */
  readonly encryptionKey: Buffer;
  readonly webhookAllowPrivate: boolean;
  readonly webhookRetryBaseMs: number;
  readonly webhookTimeoutMs: number;
  /** A statement export whose client takes nothing for this long is ended (docs/contract/statement.md#exports). */
  readonly exportStallTimeoutMs: number;
  /** Events and their delivery records are deleted after this many days (docs/contract/webhooks.md#event-retention). */
  readonly eventRetentionDays: number;
  readonly simPayoutDelayMs: number;
  readonly simRefundDelayMs: number;
  /** The withdrawal recovery sweep: how often it runs, and how long an open withdrawal must not have moved to be taken. */
  readonly withdrawalSweepEveryMs: number;
  readonly withdrawalStuckAfterMs: number;
  /**
   * SUBSCRIPTION_SWEEP_INTERVAL_MS: how often the subscriptions sweep runs, and how long a cycle's claim may wait for
   * its charge before the sweep completes it (docs/contract/subscriptions.md#issuing).
   */
  readonly subscriptionSweepEveryMs: number;
  /** 0 turns rate limiting off. */
  readonly rateLimitPerSecond: number;
  /** REDIS_URL: rate-limit counters shared by every process; null counts per process. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key, so deployments (or tests) can share one Redis. */
  readonly redisPrefix: string;
  /** Bearer for GET /metrics besides ADMIN_TOKEN (null: only ADMIN_TOKEN). */
  readonly metricsToken: string | null;
  /** A `worker` process serves /metrics and /health/ready on this port when set. */
  readonly metricsPort: number | null;
  /** On SIGTERM, how long requests in flight and running jobs get to finish. */
  readonly shutdownGraceMs: number;
  /** TRUST_PROXY: Fastify's trustProxy (true, a hop count, or addresses/CIDRs), so req.ip is the client's. */
  readonly trustProxy: boolean | number | string;
  readonly logLevel: string;
  /** PIX_PROVIDER: the embedded simulator (default) or a PSP speaking BACEN's API Pix v2. */
  readonly pixProvider: PixProviderName;
  /** Set only when pixProvider is 'api-pix' (docs/providers.md). */
  readonly apiPix: ApiPixConfig | null;
  /** Generated secrets printed once at first start (null when given or already saved). */
  readonly generated: { readonly adminToken: boolean; readonly encryptionKey: boolean };
}

export type PixProviderName = 'simulator' | 'api-pix';

export interface ApiPixConfig {
  readonly baseUrl: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: string;
  /** mTLS client certificate and key (PEM); null only over plain http (API_PIX_ALLOW_HTTP, tests). */
  readonly certFile: string | null;
  readonly keyFile: string | null;
  readonly caFile: string | null;
  readonly webhookToken: string;
  readonly timeoutMs: number;
  readonly pollIntervalMs: number;
  /** API_PIX_RECONCILE_INTERVAL_S: how often received PIX are listed at the PSP and reconciled (docs/contract/psp.md#reconciliation). */
  readonly reconcileIntervalS: number;
  /** The platform's own key at the PSP, the payer of payouts. */
  readonly payoutKey: string;
  /** When set, every cob uses this key instead of the merchant's (one collecting account). */
  readonly receiverKey: string | null;
  /**
   * The platform's own account at the PSP, where Pix Automático's cycle charges are received (API Pix
   * `cobr.recebedor`): API_PIX_RECEIVER_AGENCY, API_PIX_RECEIVER_ACCOUNT, API_PIX_RECEIVER_ACCOUNT_TYPE.
   */
  readonly receiverAccount: { readonly agency: string; readonly account: string; readonly type: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO' };
}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer >= ${min}`);
  return Number(raw);
}

function boolVar(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new Error(`${name} must be true or false`);
}

/** GET /metrics' bearer besides ADMIN_TOKEN; as long as ADMIN_TOKEN must be, so it cannot be guessed either. */
function metricsTokenVar(raw = ''): string | null {
  if (raw === '') return null;
  if (raw.length < 32) throw new Error('METRICS_TOKEN must be at least 32 characters');
  return raw;
}

function trustProxyVar(raw = ''): boolean | number | string {
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

/** Waits without an event loop: loadConfig is synchronous. */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * An operator secret from the environment, else the one saved under the data dir, else a new one saved
 * there. The file is created exclusively (`wx`): of several processes starting together on a new data dir,
 * one writes it and every other reads that one, so all agree (waiting out the instant it is still empty).
 */
function persistentSecret(env: Env, name: string, dataDir: string, file: string, make: () => string) {
  const given = env[name];
  if (given) return { value: given, generated: false };
  const path = join(dataDir, file);
  mkdirSync(dataDir, { recursive: true });
  const value = make();
  try {
    writeFileSync(path, value + '\n', { mode: 0o600, flag: 'wx' });
    return { value, generated: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (let waited = 0; ; waited += 10) {
    const saved = readFileSync(path, 'utf8').trim();
    if (saved) return { value: saved, generated: false };
    if (waited >= 5000) throw new Error(`${name}: ${path} is empty; remove it or set ${name}`);
    pause(10);
  }
}

/** The operator API's only guard: long enough not to be guessed (a generated one has 36 characters). */
function adminTokenOf(value: string): string {
  if (value.length < 32) throw new Error('ADMIN_TOKEN must be at least 32 characters; unset it to have one generated and saved');
  return value;
}

function parseEncryptionKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

function urlVar(env: Env, name: string, allowHttp: boolean, fallback?: string): string {
  const raw = (env[name] || fallback || '').replace(/\/+$/, '');
  if (!raw) throw new Error(`${name} is required when PIX_PROVIDER=api-pix`);
  let url: URL;
  try { url = new URL(raw); } catch { throw new Error(`${name} must be a URL`); }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) throw new Error(`${name} must be an https URL`);
  return raw;
}

function fileVar(env: Env, name: string, required: boolean): string | null {
  const path = env[name];
  if (!path) {
    if (required) throw new Error(`${name} is required when PIX_PROVIDER=api-pix`);
    return null;
  }
  if (!existsSync(path)) throw new Error(`${name}: file not found`);
  return path;
}

function requiredVar(env: Env, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is required when PIX_PROVIDER=api-pix`);
  return value;
}

/** API Pix settings; nothing is read unless the provider is selected. */
function apiPixConfig(env: Env): ApiPixConfig {
  // Test-only: a plain-http PSP without mTLS. A real PSP is always https with a client certificate.
  const allowHttp = boolVar(env, 'API_PIX_ALLOW_HTTP');
  const baseUrl = urlVar(env, 'API_PIX_BASE_URL', allowHttp);
  const tokenUrl = urlVar(env, 'API_PIX_TOKEN_URL', allowHttp, `${baseUrl}/oauth/token`);
  const tls = baseUrl.startsWith('https:') || tokenUrl.startsWith('https:');
  const webhookToken = requiredVar(env, 'API_PIX_WEBHOOK_TOKEN');
  // It may travel in the URL path, so only URL-safe characters, and long enough not to be guessed.
  if (!/^[A-Za-z0-9._~-]{32,256}$/.test(webhookToken)) throw new Error('API_PIX_WEBHOOK_TOKEN must be 32-256 characters [A-Za-z0-9._~-]');
  return {
    baseUrl,
    tokenUrl,
    clientId: requiredVar(env, 'API_PIX_CLIENT_ID'),
    clientSecret: requiredVar(env, 'API_PIX_CLIENT_SECRET'),
    scopes: env.API_PIX_SCOPES || 'cob.write cob.read pix.write pix.read rec.write rec.read solicrec.write solicrec.read cobr.write cobr.read payloadlocationrec.write',
    certFile: fileVar(env, 'API_PIX_CERT_FILE', tls),
    keyFile: fileVar(env, 'API_PIX_KEY_FILE', tls),
    caFile: fileVar(env, 'API_PIX_CA_FILE', false),
    webhookToken,
    timeoutMs: intVar(env, 'API_PIX_TIMEOUT_MS', 10_000, 1),
    pollIntervalMs: intVar(env, 'API_PIX_POLL_INTERVAL_MS', 5_000, 1),
    reconcileIntervalS: intVar(env, 'API_PIX_RECONCILE_INTERVAL_S', 300, 1),
    payoutKey: requiredVar(env, 'API_PIX_PAYOUT_KEY'),
    receiverKey: env.API_PIX_RECEIVER_KEY || null,
    receiverAccount: receiverAccountVars(env),
  };
}

/** docs/contract/subscriptions.md#at-the-provider: the account BACEN's `cobr.recebedor` names, checked at start. */
function receiverAccountVars(env: Env): ApiPixConfig['receiverAccount'] {
  const agency = requiredVar(env, 'API_PIX_RECEIVER_AGENCY');
  const account = requiredVar(env, 'API_PIX_RECEIVER_ACCOUNT');
  const type = requiredVar(env, 'API_PIX_RECEIVER_ACCOUNT_TYPE');
  if (!/^\d{1,4}$/.test(agency)) throw new Error('API_PIX_RECEIVER_AGENCY must be 1 to 4 digits');
  if (!/^\d{1,20}$/.test(account)) throw new Error('API_PIX_RECEIVER_ACCOUNT must be 1 to 20 digits');
  if (type !== 'CORRENTE' && type !== 'POUPANCA' && type !== 'PAGAMENTO') {
    throw new Error('API_PIX_RECEIVER_ACCOUNT_TYPE must be CORRENTE, POUPANCA or PAGAMENTO');
  }
  return { agency, account, type };
}

function pixProviderVar(env: Env): PixProviderName {
  const raw = env.PIX_PROVIDER || 'simulator';
  if (raw !== 'simulator' && raw !== 'api-pix') throw new Error('PIX_PROVIDER must be simulator or api-pix');
  return raw;
}

/** PUBLIC_URL without its trailing slash, else http://<HOST>:<PORT> (a wildcard listen address as localhost). */
function publicUrlVar(env: Env, host: string, port: number): string {
  const raw = (env.PUBLIC_URL ?? '').replace(/\/+$/, '');
  if (!raw) return `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try { url = new URL(raw); } catch { throw new Error('PUBLIC_URL must be an http(s) URL'); }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('PUBLIC_URL must be an http(s) URL');
  return raw;
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const dataDir = overrides.dataDir ?? resolve(PROJECT_ROOT, env.PIXGATE_DATA_DIR ?? '.data');
  const admin = persistentSecret(env, 'ADMIN_TOKEN', dataDir, 'admin-token', () => 'adm_' + randomBytes(24).toString('base64url'));
  const enc = persistentSecret(env, 'ENCRYPTION_KEY', dataDir, 'encryption-key', () => randomBytes(32).toString('hex'));
  const pixProvider = pixProviderVar(env);
  const config: Config = {
    port: intVar(env, 'PORT', 3000),
    host: env.HOST || '127.0.0.1',
    publicUrl: publicUrlVar(env, env.HOST || '127.0.0.1', intVar(env, 'PORT', 3000)),
    databaseUrl: env.DATABASE_URL || null,
    dataDir,
    adminToken: adminTokenOf(admin.value),
    encryptionKey: parseEncryptionKey(enc.value),
    webhookAllowPrivate: boolVar(env, 'WEBHOOK_ALLOW_PRIVATE'),
    webhookRetryBaseMs: intVar(env, 'WEBHOOK_RETRY_BASE_MS', 30_000),
    webhookTimeoutMs: intVar(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    exportStallTimeoutMs: intVar(env, 'EXPORT_STALL_TIMEOUT_MS', 30_000, 1),
    eventRetentionDays: intVar(env, 'EVENT_RETENTION_DAYS', 30, 1),
    simPayoutDelayMs: intVar(env, 'SIM_PAYOUT_DELAY_MS', 1000),
    simRefundDelayMs: intVar(env, 'SIM_REFUND_DELAY_MS', 1000),
    withdrawalSweepEveryMs: intVar(env, 'WITHDRAWAL_SWEEP_INTERVAL_MS', 30_000, 1),
    withdrawalStuckAfterMs: intVar(env, 'WITHDRAWAL_STUCK_AFTER_MS', 60_000),
    subscriptionSweepEveryMs: intVar(env, 'SUBSCRIPTION_SWEEP_INTERVAL_MS', 30_000, 100),
    rateLimitPerSecond: intVar(env, 'RATE_LIMIT_PER_SECOND', 100),
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || 'pixgate:',
    metricsToken: metricsTokenVar(env.METRICS_TOKEN),
    metricsPort: env.METRICS_PORT ? intVar(env, 'METRICS_PORT', 0, 1) : null,
    shutdownGraceMs: intVar(env, 'SHUTDOWN_GRACE_MS', 10_000),
    trustProxy: trustProxyVar(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    pixProvider,
    apiPix: pixProvider === 'api-pix' ? apiPixConfig(env) : null,
    generated: { adminToken: admin.generated, encryptionKey: enc.generated },
    ...overrides,
  };
  return Object.freeze(config);
}
