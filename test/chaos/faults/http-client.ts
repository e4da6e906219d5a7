import type pg from 'pg';
import type { Executor } from '../../../src/platform/db.js';
import type { CallResult, Client } from '../workload/client.js';
import type { ServiceProcess } from './service.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REQUEST_TIMEOUT_MS = 20_000;
const GIVE_UP_MS = 180_000;

/** Connection-level failures (refused, reset, database restarting): the query is simply tried again. */
export function retryingExecutor(pool: pg.Pool): Executor {
  const query = async (...args: unknown[]) => {
    const deadline = Date.now() + GIVE_UP_MS;
    for (;;) {
      try {
        return await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
      } catch (err) {
        const code = (err as { code?: string }).code ?? '';
        const transient = !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('57P') || code.startsWith('08');
        if (!transient || Date.now() > deadline) throw err;
        await sleep(200);
      }
    }
  };
  return { query } as unknown as Executor;
}

export interface HttpStats {
  lostAnswers: number;
  retries: number;
  /**
   * The longest a retry waited on "still in progress" — the key claimed by an attempt that a kill or a
   * database restart cut off — before it was answered: a claim never outlives its request by more than
   * 10 s (docs/contract/http.md#idempotency-claims).
   */
  longestClaimWaitMs: number;
}

/**
 * The workload's client over real HTTP to a service that dies. A request without an answer (connection
 * refused or reset, timeout, 5xx) is retried after the service is back when that is safe: GETs, and
 * merchant POSTs, which always carry an Idempotency-Key — the retry replays the stored answer or does
 * the work once. The operator's simulator calls carry no key: a lost answer comes back uncertain
 * (status 0) and the workload reads the state back.
 */
export function httpClient(service: Pick<ServiceProcess, 'ready' | 'baseUrl'>, adminToken: string, db: Executor, stats: HttpStats): Client {
  async function call(method: string, url: string, auth: string, body: unknown, idemKey: string | undefined, retryPost: boolean): Promise<CallResult> {
    let uncertain = false;
    let waitingOnClaimSince: number | null = null;
    const deadline = Date.now() + GIVE_UP_MS;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`${method} ${url}: no answer for ${GIVE_UP_MS} ms`);
      await service.ready();
      const headers: Record<string, string> = { authorization: `Bearer ${auth}` };
      if (idemKey) headers['idempotency-key'] = idemKey;
      if (body !== undefined) headers['content-type'] = 'application/json';
      let res: Response | null = null;
      let raw = '';
      try {
        res = await fetch(`${service.baseUrl}${url}`, {
          method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        raw = await res.text();
      } catch {
        res = null;
      }
      let parsed: any = raw;
      try { parsed = JSON.parse(raw); } catch { /* not JSON */ }
      const answered = res !== null && res.status < 500;
      const inProgress = res?.status === 409 && parsed?.error === 'IDEMPOTENCY_CONFLICT' && /still in progress/.test(parsed?.message ?? '');
      // Our own earlier attempt may still hold the key (its connection not yet seen dead): wait for it.
      // One wait is a run of "still in progress" answers: a lost answer (the service or the database away) ends it.
      if (inProgress && uncertain) waitingOnClaimSince ??= Date.now();
      else if (!answered) waitingOnClaimSince = null;
      if (answered && !(inProgress && uncertain)) {
        if (waitingOnClaimSince !== null) stats.longestClaimWaitMs = Math.max(stats.longestClaimWaitMs, Date.now() - waitingOnClaimSince);
        return { status: res!.status, body: parsed, raw, replayed: res!.headers.get('idempotent-replayed') === 'true', uncertain };
      }
      if (!answered) stats.lostAnswers++;
      uncertain = true;
      if (method !== 'GET' && !retryPost) return { status: 0, body: null, raw, replayed: false, uncertain };
      stats.retries++;
      await sleep(100);
    }
  }
  return {
    merchant: (key, method, url, body, idemKey) => call(method, url, key, body, idemKey, idemKey !== undefined),
    admin: (method, url, body) => call(method, url, adminToken, body, undefined, false),
    alwaysIdempotent: true,
    faults: true,
    db,
  };
}
