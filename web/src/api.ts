/**
 * The dashboard's only way to the server: the public API on the same origin, authenticated by the
 * HttpOnly `pxg_session` cookie (docs/contract/access.md#browser-session). No token is ever held by this code.
 */
export interface Page<T> {
  data: T[];
  pagination: { hasMore: boolean; next: string | null; before: string | null };
}

/** An API error; `field` is the part before `: ` of a `<field>: <reason>` message, when there is one. */
export class ApiError extends Error {
  readonly field: string | null;
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.field = /^([A-Za-z][\w.[\]]*): /.exec(message)?.[1] ?? null;
  }
}

let onUnauthorized: (() => void) | null = null;
/** The session provider registers what a 401 means (back to login, then to this page). */
export const setUnauthorizedHandler = (fn: (() => void) | null) => { onUnauthorized = fn; };

async function call<T>(method: string, path: string, body?: unknown, raw = false): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // The CSRF guard: a cookie-authenticated request other than GET must name the dashboard.
  if (method !== 'GET') headers['x-pixgate-client'] = 'dashboard';
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'NETWORK', 'network: the server did not answer');
  }
  const json = await res.json().catch(() => null) as { data?: unknown; error?: string; message?: string } | null;
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/')) onUnauthorized?.();
    throw new ApiError(res.status, json?.error ?? 'INTERNAL_ERROR', json?.message ?? `HTTP ${res.status}`);
  }
  return (raw ? json : json?.data) as T;
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  page: <T>(path: string) => call<Page<T>>('GET', path, undefined, true),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body),
  patch: <T>(path: string, body?: unknown) => call<T>('PATCH', path, body),
  del: <T>(path: string, body?: unknown) => call<T>('DELETE', path, body),
};

/** `?a=1&b=2` from the set values only. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

// The API's objects, as the dashboard reads them (fields from src/**/*.schemas.ts and docs/contract.md).
export type Role = 'OWNER' | 'DEVELOPER' | 'FINANCE' | 'VIEWER';
export interface User { id: string; email: string; name: string; role: Role; totpEnabled: boolean; createdAt: string; lastLoginAt: string | null }
export interface Balance { available: number; pending: number; blocked: number }
export interface Store { id: string; name: string | null; balance: Balance }
export interface Refund { id: string; amount: number; status: string; reason: string; failedReason: string | null; createdAt: string; completedAt: string | null }
export interface Customer { id: string; email: string; name: string | null; taxId: string | null; phone?: string | null; createdAt?: string }
export interface Charge {
  id: string; amount: number; status: string; txid: string; brCode: string; description: string | null;
  createdAt: string; expiresAt: string; paidAt: string | null; end2endId: string | null; fee: number | null;
  netAmount: number | null; refund?: Refund; customer?: Customer; imageBase64?: string;
  split: Array<{ merchantId: string; mode: string; value: number; amount: number }>;
}
export interface Withdrawal {
  id: string; amount: number; fee: number; status: string; description: string | null; createdAt: string;
  completedAt: string | null; failedReason: string | null; pixKey?: string; pixKeyType?: string;
}
export interface WebhookEndpoint { id: string; url: string; events: string[]; createdAt: string; secret?: string }
export interface Delivery {
  id: string; eventId: string; event: string; attempt: number; statusCode: number | null; success: boolean;
  error: string | null; durationMs: number; createdAt: string; manual?: boolean;
}
export interface ApiKey { id: string; name: string; last4: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null; key?: string }
export interface EventItem { id: string; type: string; createdAt: string; data: unknown; deliveries: { pending: number; succeeded: number; failed: number }; attempts?: Delivery[] }
export interface StatementLine {
  id: string; createdAt: string; account: string; type: string; amount: number; balanceAfter: number; fee: number;
  chargeId: string | null; refundId: string | null; withdrawalId: string | null; disputeId: string | null; description: string;
}
export interface DailyLine { date: string; opening: number; credits: number; debits: number; closing: number }
export interface LoginAnswer { token: string; expiresAt: string; user: User; merchant: { id: string; name: string | null } }
