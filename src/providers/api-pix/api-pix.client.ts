import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { ApiPixConfig } from '../../config.js';
import { AppError } from '../../platform/errors.js';

/** A PSP answer larger than this is not an API Pix answer. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** The token is renewed this long before the PSP says it expires, so no call carries one that lapses in flight. */
const RENEW_MARGIN_MS = 60_000;
/** OAuth2 makes expires_in optional; without it the token is kept this long. */
const DEFAULT_TOKEN_TTL_S = 300;

/**
 * A PSP call that failed. The message names the operation (`PUT /cob/{txid}`), never an id, a token
 * or a credential; `status` is the PSP's HTTP status, null when it did not answer.
 */
export class ApiPixError extends AppError {
  /** @param detail the PSP's problem detail or title (RFC 7807), cleaned; '' when it gave none. */
  constructor(message: string, readonly status: number | null, readonly detail = '') {
    super('PROVIDER_ERROR', message);
  }
}

export interface ApiPixClient {
  /** A JSON call; answers the parsed body of a 2xx, throws ApiPixError otherwise. `op` names it in errors. */
  request<T>(method: 'GET' | 'PUT' | 'POST' | 'PATCH', path: string, op: string, body?: unknown): Promise<T>;
  /** A GET that answers null on 404 (the resource was never created at the PSP). */
  find<T>(path: string, op: string): Promise<T | null>;
}

interface Answer { status: number; text: string }

/** Printable, short: a PSP's problem title may end up in a log line or a failure reason. */
const clean = (s: unknown) => (typeof s === 'string' ? s.replace(/[^\x20-\x7E\u00A0-\u00FF]/g, '').slice(0, 140) : '');

function problemTitle(text: string): string {
  try {
    const p = JSON.parse(text) as { title?: unknown; detail?: unknown };
    return clean(p.detail) || clean(p.title);
  } catch {
    return '';
  }
}

const parse = <T>(a: Answer, op: string): T => {
  try {
    return JSON.parse(a.text) as T;
  } catch {
    throw new ApiPixError(`API Pix ${op}: the PSP answered ${a.status} with invalid JSON`, a.status);
  }
};

export function createApiPixClient(cfg: ApiPixConfig): ApiPixClient {
  // mTLS: the PSP identifies us by the certificate it issued, on the token call and every API call.
  const tlsAgent = cfg.certFile
    ? new https.Agent({
      keepAlive: true,
      cert: readFileSync(cfg.certFile),
      key: readFileSync(cfg.keyFile!),
      ca: cfg.caFile ? readFileSync(cfg.caFile) : undefined,
    })
    : undefined;

  function send(method: string, url: URL, headers: Record<string, string>, payload: string | undefined, op: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const fail = (err: unknown) => {
        // The cause's code only: a TLS or socket message can carry host names, never needed here.
        const code = (err as { code?: string; name?: string }).code ?? (err as { name?: string }).name ?? 'error';
        reject(new ApiPixError(`API Pix ${op}: no answer from the PSP (${clean(code)})`, null));
      };
      const secure = url.protocol === 'https:';
      const options: https.RequestOptions = {
        method, headers, signal: AbortSignal.timeout(cfg.timeoutMs), ...(secure && tlsAgent ? { agent: tlsAgent } : {}),
      };
      const req = (secure ? https : http).request(url, options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(Object.assign(new Error('answer too large'), { code: 'ANSWER_TOO_LARGE' }));
          else chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('close', () => { if (!res.complete) fail(Object.assign(new Error('answer cut short'), { code: 'ANSWER_CUT_SHORT' })); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', fail);
      req.end(payload);
    });
  }

  let token: { value: string; renewAt: number } | null = null;
  let inFlight: Promise<string> | null = null;

  async function fetchToken(): Promise<string> {
    const op = 'POST /oauth/token';
    const basic = Buffer.from(`${cfg.clientId}:${cfg.clientSecret}`).toString('base64');
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: cfg.scopes }).toString();
    const a = await send('POST', new URL(cfg.tokenUrl), {
      authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json',
    }, form, op);
    if (a.status < 200 || a.status > 299) throw new ApiPixError(`API Pix ${op}: the PSP answered ${a.status}`, a.status);
    const t = parse<{ access_token?: unknown; expires_in?: unknown }>(a, op);
    if (typeof t.access_token !== 'string' || t.access_token === '') throw new ApiPixError(`API Pix ${op}: answer without access_token`, a.status);
    const ttlMs = (typeof t.expires_in === 'number' && t.expires_in > 0 ? t.expires_in : DEFAULT_TOKEN_TTL_S) * 1000;
    // A short-lived token is still reused for half its life rather than fetched on every call.
    token = { value: t.access_token, renewAt: Date.now() + Math.max(ttlMs - RENEW_MARGIN_MS, Math.floor(ttlMs / 2)) };
    return t.access_token;
  }

  /** One token for all calls until shortly before it expires; concurrent callers share one token request. */
  function accessToken(): Promise<string> {
    if (token && Date.now() < token.renewAt) return Promise.resolve(token.value);
    inFlight ??= fetchToken().finally(() => { inFlight = null; });
    return inFlight;
  }

  async function call(method: string, path: string, op: string, body: unknown): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const bearer = await accessToken();
      const headers: Record<string, string> = { authorization: `Bearer ${bearer}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const a = await send(method, new URL(cfg.baseUrl + path), headers, body === undefined ? undefined : JSON.stringify(body), op);
      // A token the PSP revoked or expired early: drop it and try once more with a fresh one.
      if (a.status === 401 && attempt === 0) {
        if (token?.value === bearer) token = null;
        continue;
      }
      return a;
    }
  }

  const failure = (a: Answer, op: string) => {
    const title = problemTitle(a.text);
    return new ApiPixError(`API Pix ${op}: the PSP answered ${a.status}${title ? ` (${title})` : ''}`, a.status, title);
  };

  return {
    async request<T>(method: string, path: string, op: string, body?: unknown): Promise<T> {
      const a = await call(method, path, op, body);
      if (a.status < 200 || a.status > 299) throw failure(a, op);
      return parse<T>(a, op);
    },
    async find<T>(path: string, op: string): Promise<T | null> {
      const a = await call('GET', path, op, undefined);
      if (a.status === 404) return null;
      if (a.status < 200 || a.status > 299) throw failure(a, op);
      return parse<T>(a, op);
    },
  };
}
