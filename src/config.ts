import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface Config {
  readonly port: number;
  readonly host: string;
  /** null: run the embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly adminToken: string;
  /** 32 bytes: AES-256-GCM key for secrets at rest; cursor and other HMAC keys are derived from it. */
  readonly encryptionKey: Buffer;
  readonly webhookAllowPrivate: boolean;
  readonly webhookRetryBaseMs: number;
  readonly webhookTimeoutMs: number;
  readonly simPayoutDelayMs: number;
  readonly simRefundDelayMs: number;
  /** 0 turns rate limiting off. */
  readonly rateLimitPerSecond: number;
  readonly logLevel: string;
  /** Generated secrets printed once at first start (null when given or already saved). */
  readonly generated: { readonly adminToken: boolean; readonly encryptionKey: boolean };
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

/** An operator secret from the environment, else the one saved under the data dir, else a new one saved there. */
function persistentSecret(env: Env, name: string, dataDir: string, file: string, make: () => string) {
  const given = env[name];
  if (given) return { value: given, generated: false };
  const path = join(dataDir, file);
  if (existsSync(path)) return { value: readFileSync(path, 'utf8').trim(), generated: false };
  mkdirSync(dataDir, { recursive: true });
  const value = make();
  writeFileSync(path, value + '\n', { mode: 0o600 });
  return { value, generated: true };
}

function parseEncryptionKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const dataDir = overrides.dataDir ?? resolve(PROJECT_ROOT, env.PIXGATE_DATA_DIR ?? '.data');
  const admin = persistentSecret(env, 'ADMIN_TOKEN', dataDir, 'admin-token', () => 'adm_' + randomBytes(24).toString('base64url'));
  const enc = persistentSecret(env, 'ENCRYPTION_KEY', dataDir, 'encryption-key', () => randomBytes(32).toString('hex'));
  const config: Config = {
    port: intVar(env, 'PORT', 3000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || null,
    dataDir,
    adminToken: admin.value,
    encryptionKey: parseEncryptionKey(enc.value),
    webhookAllowPrivate: boolVar(env, 'WEBHOOK_ALLOW_PRIVATE'),
    webhookRetryBaseMs: intVar(env, 'WEBHOOK_RETRY_BASE_MS', 30_000),
    webhookTimeoutMs: intVar(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    simPayoutDelayMs: intVar(env, 'SIM_PAYOUT_DELAY_MS', 1000),
    simRefundDelayMs: intVar(env, 'SIM_REFUND_DELAY_MS', 1000),
    rateLimitPerSecond: intVar(env, 'RATE_LIMIT_PER_SECOND', 100),
    logLevel: env.LOG_LEVEL || 'info',
    generated: { adminToken: admin.generated, encryptionKey: enc.generated },
    ...overrides,
  };
  return Object.freeze(config);
}
