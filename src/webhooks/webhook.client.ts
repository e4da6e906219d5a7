// One webhook HTTP attempt: resolve + check + pin, POST the exact bytes, classify the outcome.
// Retry scheduling, signing and recording belong to the delivery service, not here.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { bareHostname, resolvePublicTarget, TargetRefusedError, type Resolver } from './webhook-url.rules.js';

/** The receiver's body is not recorded; reading stops here so a huge or endless one costs nothing. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
  resolver?: Resolver;
}

export interface SendResult {
  statusCode: number | null;
  success: boolean;
  error: string | null;
  durationMs: number;
  retryable: boolean;
}

type Outcome = Omit<SendResult, 'durationMs'>;

class Timeout extends Error {}

function describeNetworkError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? '';
  switch (code) {
    case 'ECONNREFUSED': return 'connection refused';
    case 'ECONNRESET': return 'connection reset';
    case 'EPIPE': return 'connection closed';
    case 'EHOSTUNREACH': return 'host unreachable';
    case 'ENETUNREACH': return 'network unreachable';
    case 'ETIMEDOUT': return 'connect timed out';
  }
  if (code.startsWith('HPE_')) return 'invalid http response';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO/.test(code)) return `tls error (${code})`;
  const text = code || withoutAddresses(err instanceof Error ? err.message : String(err));
  return `network error: ${text}`.slice(0, 200);
}

/** A socket error's text can name the address it connected to; the merchant reads this text, so it never does. */
const withoutAddresses = (text: string) =>
  text.replace(/\[?[0-9a-f]*:[0-9a-f:.]*:[0-9a-f.]+\]?(:\d+)?/gi, '[address]').replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, '[address]');

function classify(status: number): Outcome {
  // Node's parser lets `HTTP/1.1 000` and `099` through; no such status exists, so none is recorded.
  if (status < 100) return { statusCode: null, success: false, error: 'invalid http response', retryable: true };
  if (status >= 200 && status < 300) return { statusCode: status, success: true, error: null, retryable: false };
  // 3xx is retried: a redirect is never followed (it could point inside the network) and the
  // receiver may fix it; 4xx is the receiver's definitive answer (docs/contract/webhooks.md#delivery).
  if (status >= 300 && status < 400) {
    return { statusCode: status, success: false, error: `redirect not followed (${status})`, retryable: true };
  }
  return { statusCode: status, success: false, error: `http ${status}`, retryable: !(status >= 400 && status < 500) };
}

/**
 * Makes one POST attempt. Never throws: every failure comes back as a SendResult.
 *
 * A target refused by the SSRF policy is NOT retryable (error `blocked: <reason>`): the same DNS
 * answer will be refused again seconds later, and hammering a name that points inside the network
 * has no upside. A DNS failure, by contrast, is a network error and is retried.
 */
export async function sendWebhook(req: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const timeoutMs = Number.isFinite(req.timeoutMs) && req.timeoutMs > 0 ? req.timeoutMs : 10_000;
  // One deadline for everything (DNS, connect, TLS, response headers): a hanging resolver or a
  // receiver that accepts and never answers must not hold a delivery worker.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const resolveDeadline = new Promise<never>((_, reject) => {
    deadline.signal.addEventListener('abort', () => reject(new Timeout()), { once: true });
  });
  resolveDeadline.catch(() => {});
  const finish = (o: Outcome): SendResult => ({ ...o, durationMs: Math.round(performance.now() - started) });
  const timedOut = (): SendResult =>
    finish({ statusCode: null, success: false, error: `timeout after ${timeoutMs} ms`, retryable: true });

  try {
    let target: { address: string; family: 4 | 6 };
    try {
      target = await Promise.race([
        resolvePublicTarget(req.url, { allowPrivate: req.allowPrivate, resolver: req.resolver }),
        resolveDeadline,
      ]);
    } catch (err) {
      if (err instanceof Timeout) return timedOut();
      if (err instanceof TargetRefusedError) {
        return finish({ statusCode: null, success: false, error: `blocked: ${err.reason}`, retryable: false });
      }
      const message = err instanceof Error ? err.message : String(err);
      return finish({ statusCode: null, success: false, error: message.slice(0, 200), retryable: true });
    }

    const outcome = await post(req, target, deadline.signal).catch((err: unknown): Outcome | null => {
      if (err instanceof Timeout) return null;
      return { statusCode: null, success: false, error: describeNetworkError(err), retryable: true };
    });
    return outcome === null ? timedOut() : finish(outcome);
  } catch (err) {
    // Defensive: nothing above should throw, but a delivery worker must never crash on one attempt.
    return finish({ statusCode: null, success: false, error: describeNetworkError(err), retryable: true });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Keep-alive connections, one pool per (scheme, host, port, checked address): a request reuses a socket only
 * if that socket was opened to the very address this attempt's own DNS answer was checked to be, so the pin
 * holds for pooled sockets too (a host whose address changes gets a pool of its own). An idle socket is closed
 * after FREE_SOCKET_MS, before a typical server's keep-alive timeout (5 s in Node) closes it under a request.
 * At most MAX_POOLS pools are kept; the oldest is forgotten, and its idle sockets close on their timer.
 */
const FREE_SOCKET_MS = 4_000;
const MAX_POOLS = 512;
/**
 * Idle sockets a pool keeps: as many as a dispatcher has attempts in flight (100 with the default worker), so a
 * burst to one receiver finds its connections open next time instead of closing and reconnecting the excess.
 */
const MAX_FREE_SOCKETS = 128;
const pools = new Map<string, http.Agent>();

/**
 * The socket connects to the address that was checked, never to a fresh DNS answer (DNS rebinding).
 * Node 20 asks with `all: true` when autoSelectFamily is on.
 */
function pinnedLookup(target: { address: string; family: 4 | 6 }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

function pooled(isHttps: boolean, host: string, port: number, target: { address: string; family: 4 | 6 }): http.Agent {
  const key = `${isHttps ? 'https' : 'http'}://${host}:${port}@${target.address}`;
  let agent = pools.get(key);
  if (agent) {
    pools.delete(key); // most recently used last
  } else {
    const options = { keepAlive: true, timeout: FREE_SOCKET_MS, maxFreeSockets: MAX_FREE_SOCKETS, lookup: pinnedLookup(target), family: target.family };
    agent = isHttps ? new https.Agent(options) : new http.Agent(options);
    if (pools.size >= MAX_POOLS) pools.delete(pools.keys().next().value!);
  }
  pools.set(key, agent);
  return agent;
}

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

async function post(req: SendRequest, target: { address: string; family: 4 | 6 }, signal: AbortSignal): Promise<Outcome> {
  try {
    return await postOnce(req, target, signal, true);
  } catch (err) {
    // A pooled socket the receiver closed just as it was reused fails before any answer: that request never
    // reached the receiver's application, so it goes once more on a connection of its own.
    if (!(err instanceof ReusedSocketClosed)) throw err;
    return postOnce(req, target, signal, false);
  }
}

class ReusedSocketClosed extends Error {}

function postOnce(req: SendRequest, target: { address: string; family: 4 | 6 }, signal: AbortSignal, reuse: boolean): Promise<Outcome> {
  const url = new URL(req.url);
  const host = bareHostname(url);
  const body = Buffer.from(req.body, 'utf8');
  const isHttps = url.protocol === 'https:';
  const port = url.port === '' ? (isHttps ? 443 : 80) : Number(url.port);
  const options: https.RequestOptions = {
    method: 'POST',
    host, // also gives the Host header (with the port), as a receiver expects
    port,
    path: `${url.pathname}${url.search}`,
    headers: { ...req.headers, 'Content-Length': String(body.length) },
    family: target.family,
  };
  if (reuse) {
    options.agent = pooled(isHttps, host, port, target);
  } else {
    options.agent = false;
    options.lookup = pinnedLookup(target);
  }
  // SNI and certificate checks use the name, not the pinned IP (SNI cannot carry an IP literal).
  if (isHttps && target.address !== host) options.servername = host;

  return new Promise<Outcome>((resolve, reject) => {
    let outcome: Outcome | null = null;
    let done = false;
    /** `complete`: the answer was read to its end, so its connection may serve the next attempt. */
    const settle = (complete = false): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      if (outcome) resolve(outcome);
      else reject(new Timeout());
      // Otherwise drop the connection: a response larger than the cap is never read to its end.
      if (!complete) request.destroy();
    };
    // Past the deadline: without a status it is a timeout; with one, the status stands and the
    // rest of the body is simply abandoned.
    const onAbort = (): void => settle();
    signal.addEventListener('abort', onAbort, { once: true });

    const request = (isHttps ? https : http).request(options, (res) => {
      outcome = classify(res.statusCode ?? 0);
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= MAX_RESPONSE_BYTES) settle();
      });
      res.on('end', () => settle(true));
      res.on('close', () => settle());
      res.on('error', () => settle()); // status already known; a broken body does not change the outcome
    });
    request.on('error', (err) => {
      if (outcome) return settle(); // the status arrived before the failure: it stands
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      request.destroy();
      const code = (err as NodeJS.ErrnoException).code ?? '';
      reject(request.reusedSocket && RESET_CODES.has(code) ? new ReusedSocketClosed() : err);
    });
    if (signal.aborted) settle();
    else request.end(body);
  });
}
