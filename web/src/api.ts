import type { paths } from './api.gen';

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

/**
 * A page the server renders (the link and branding previews, docs/checkouts.md#previews): POST a JSON body,
 * get HTML; a refusal is the API's envelope, thrown as an ApiError like any other.
 */
async function render(path: string, body: unknown): Promise<string> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST', credentials: 'same-origin', body: JSON.stringify(body),
      headers: { accept: 'text/html', 'content-type': 'application/json', 'x-pixgate-client': 'dashboard' },
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'network: the server did not answer');
  }
  if (res.ok) return res.text();
  const json = await res.json().catch(() => null) as { error?: string; message?: string } | null;
  if (res.status === 401) onUnauthorized?.();
  throw new ApiError(res.status, json?.error ?? 'INTERNAL_ERROR', json?.message ?? `HTTP ${res.status}`);
}

export const api = {
  render,
  get: <T>(path: string) => call<T>('GET', path),
  page: <T>(path: string) => call<Page<T>>('GET', path, undefined, true),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body),
  put: <T>(path: string, body?: unknown) => call<T>('PUT', path, body),
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

// The API's objects, as the dashboard reads them: taken from web/src/api.gen.ts, which `npm run gen:api`
// generates from the server's OpenAPI document (its schemas, src/**/*.schemas.ts), so a field the server
// does not declare fails the type-check here. No copy of a server type is kept by hand.
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Success<O> = O extends { responses: infer R } ? Json<R extends { 200: infer A } ? A : R extends { 201: infer A } ? A : never> : never;
/** The `data` of a route's success answer. */
export type Data<P extends keyof paths, M extends keyof paths[P]> = Success<paths[P][M]> extends { data: infer D } ? D : never;
type Item<T> = T extends ReadonlyArray<infer I> ? I : never;
/** The JSON body a route takes. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

export type User = Data<'/me/users/{id}', 'patch'>;
export type Role = User['role'];
export type Store = Data<'/me/store', 'get'>;
export type Contract = Data<'/me/contract', 'get'>;
export type Charge = Data<'/transparents/check', 'get'>;
export type ChargeListItem = Item<Data<'/transparents/list', 'get'>>;
export type Customer = Item<Data<'/customers', 'get'>>;
export type Withdrawal = Data<'/withdrawals/{id}', 'get'>;
export type WithdrawalQuote = Data<'/withdrawals/quote', 'get'>;
export type WebhookEndpoint = Data<'/webhooks/{id}', 'get'>;
export type CreatedEndpoint = Data<'/webhooks', 'post'>;
export type Delivery = Item<Data<'/webhooks/{id}/deliveries', 'get'>>;
export type ApiKey = Item<Data<'/me/api-keys', 'get'>>;
export type IssuedApiKey = Data<'/me/api-keys', 'post'>;
export type KeyRole = ApiKey['role'];
export type EventItem = Item<Data<'/events', 'get'>>;
export type StatementLine = Item<Data<'/me/statement', 'get'>>;
export type DailyLine = Item<Data<'/me/statement/daily', 'get'>>;
export type LoginAnswer = Data<'/auth/login', 'post'>;
export type Checkout = Data<'/checkouts/{id}', 'get'>;
export type CheckoutListItem = Item<Data<'/checkouts', 'get'>>;
export type PaymentLink = Data<'/payment-links/{id}', 'get'>;
export type PaymentLinkCreate = Body<'/payment-links', 'post'>;
export type LinkQrCode = Data<'/payment-links/{id}/qr-code', 'get'>;
export type Subscription = Data<'/subscriptions/{id}', 'get'>;
export type SubscriptionCreate = Body<'/subscriptions', 'post'>;
export type CycleCharge = Item<Data<'/subscriptions/{id}/charges', 'get'>>;
export type CycleChargeCreate = Body<'/subscriptions/{id}/charges', 'post'>;
export type Branding = Data<'/me/branding', 'get'>;
export type BrandingPut = Body<'/me/branding', 'put'>;
export { EVENT_TYPES, LISTED_EVENT_TYPES } from './api.gen';
