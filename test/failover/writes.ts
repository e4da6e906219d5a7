import { randomUUID } from 'node:crypto';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ATTEMPT_TIMEOUT_MS = 5_000;
const GIVE_UP_MS = 120_000;
/** How many of a call's last attempts a give-up prints, with their outcomes and times. */
const LAST_ATTEMPTS_SHOWN = 12;

/** One HTTP attempt: when it left and ended (ms since the workload started), and whether it was answered. */
export interface Attempt {
  start: number;
  end: number;
  ok: boolean;
  what: string;
  /** The HTTP status, or the error of an attempt without one. */
  outcome: string;
}

interface Answer {
  status: number;
  body: any;
  /** An earlier attempt of this call got no answer: it may have done the work. */
  uncertain: boolean;
}

/**
 * A constant write workload against a service whose database fails over: lanes that each create a charge
 * (Idempotency-Key), pay it through the simulator, and now and then withdraw part of the balance
 * (Idempotency-Key). A call without an answer (connection error, timeout, 5xx) is tried again — the same
 * key replays or does the work once — and every attempt is recorded for the unavailability figures. What
 * was answered 2xx is kept, to be found in the database afterwards.
 */
export class WriteWorkload {
  readonly t0 = performance.now();
  readonly attempts: Attempt[] = [];
  /** Calls as a client retrying them sees them: from the first attempt to the answer. */
  readonly calls: Attempt[] = [];
  /** Charges answered 201, with whether a payment was answered 200 or confirmed by reading it back. */
  readonly charges = new Map<string, { amount: number; paid: boolean; paidAnswered: boolean }>();
  /** Withdrawals answered 201. */
  readonly withdrawals = new Map<string, number>();
  /** Moments the test names (the failover's start, the standby taking writes), printed with a give-up. */
  readonly marks = new Map<string, number>();
  private stopped = false;

  constructor(private readonly base: string, private readonly merchantKey: string, private readonly adminToken: string) {}

  now = () => performance.now() - this.t0;

  /** Records `name` at `at` (default now), in ms since the workload started. */
  mark(name: string, at = this.now()): number {
    this.marks.set(name, at);
    return at;
  }

  private async call(method: string, url: string, auth: string, body?: unknown, idemKey?: string): Promise<Answer> {
    let uncertain = false;
    const deadline = Date.now() + GIVE_UP_MS;
    const first = this.now();
    const mine: Attempt[] = [];
    for (;;) {
      if (Date.now() > deadline) {
        const marks = [...this.marks].map(([name, at]) => `${name} at ${(at / 1000).toFixed(2)} s`).join(', ');
        throw new Error(`${method} ${url}${idemKey ? ` (Idempotency-Key ${idemKey})` : ''}: no answer for ${GIVE_UP_MS} ms (first attempt at ${(first / 1000).toFixed(2)} s${marks ? `; ${marks}` : ''}); `
          + `${mine.length} attempts (${tally(mine)}); the first: ${describe(mine.slice(0, 3))}; the last: ${describe(mine.slice(-LAST_ATTEMPTS_SHOWN))}`);
      }
      const start = this.now();
      let status = 0;
      let parsed: any = null;
      let error = '';
      try {
        const res = await fetch(`${this.base}${url}`, {
          method,
          headers: { authorization: `Bearer ${auth}`, ...(idemKey && { 'idempotency-key': idemKey }), ...(body !== undefined && { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        status = res.status;
        const text = await res.text();
        try { parsed = JSON.parse(text); } catch { parsed = text; }
      } catch (err) {
        error = (err as Error).name === 'TimeoutError' ? 'timeout' : String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message);
      }
      // Our own earlier attempt may still hold the key (its connection not yet seen dead): not an answer yet.
      const inProgress = status === 409 && parsed?.error === 'IDEMPOTENCY_CONFLICT';
      const answered = status > 0 && status < 500 && !inProgress;
      const attempt: Attempt = { start, end: this.now(), ok: answered, what: `${method} ${url.replace(/\/[a-z]+_[A-Za-z0-9]+/g, '/:id')}`,
        outcome: status ? `${status}${status >= 500 || inProgress ? ` ${parsed?.error ?? ''}` : ''}` : error };
      this.attempts.push(attempt);
      mine.push(attempt);
      if (answered) {
        this.calls.push({ ...attempt, start: first });
        return { status, body: parsed, uncertain };
      }
      uncertain = true;
      await sleep(50);
    }
  }

  private async lane(withdrawEvery: number): Promise<void> {
    for (let i = 1; !this.stopped; i++) {
      const amount = 100 + Math.floor(Math.random() * 900);
      const created = await this.call('POST', '/transparents/create', this.merchantKey, { method: 'PIX', amount }, randomUUID());
      if (created.status !== 201) throw new Error(`charge create answered ${created.status}: ${JSON.stringify(created.body)}`);
      const id: string = created.body.data.id;
      const charge = { amount, paid: false, paidAnswered: false };
      this.charges.set(id, charge);

      const paid = await this.call('POST', `/admin/simulator/charges/${id}/pay`, this.adminToken);
      if (paid.status === 200) Object.assign(charge, { paid: true, paidAnswered: true });
      else if (paid.uncertain) {
        // The operator's call carries no key: a lost answer may have paid it. Read it back.
        const check = await this.call('GET', `/transparents/check?id=${id}`, this.merchantKey);
        charge.paid = check.body?.data?.status === 'PAID';
      }
      if (!charge.paid) throw new Error(`pay ${id} answered ${paid.status}: ${JSON.stringify(paid.body)}`);

      if (i % withdrawEvery === 0 && this.available() >= 500) {
        const w = await this.call('POST', '/withdrawals', this.merchantKey, { amount: 300, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' }, randomUUID());
        // One withdrawal in flight per merchant (docs/contract/withdrawals.md#withdrawal-checks): another lane's may still be paying out.
        if (w.status === 201) this.withdrawals.set(w.body.data.id, 300);
        else if (w.body?.error !== 'WITHDRAWAL_IN_PROGRESS') throw new Error(`withdrawal answered ${w.status}: ${JSON.stringify(w.body)}`);
      }
    }
  }

  /** What the merchant has once every withdrawal completed (no fees on its contract). */
  available(): number {
    let sum = 0;
    for (const c of this.charges.values()) if (c.paid) sum += c.amount;
    for (const a of this.withdrawals.values()) sum -= a;
    return sum;
  }

  run(lanes: number, withdrawEvery = 4): { stop(): Promise<void> } {
    const running = Promise.all(Array.from({ length: lanes }, () => this.lane(withdrawEvery)));
    running.catch(() => {});
    return {
      stop: async () => {
        this.stopped = true;
        await running;
      },
    };
  }

  /** Waits until every withdrawal is final; returns their statuses. */
  async settleWithdrawals(timeoutMs: number): Promise<Map<string, string>> {
    const deadline = Date.now() + timeoutMs;
    const final = new Map<string, string>();
    while (final.size < this.withdrawals.size) {
      for (const id of this.withdrawals.keys()) {
        if (final.has(id)) continue;
        const r = await this.call('GET', `/withdrawals/${id}`, this.merchantKey);
        if (r.body?.data?.status === 'COMPLETED' || r.body?.data?.status === 'FAILED') final.set(id, r.body.data.status);
      }
      if (final.size < this.withdrawals.size && Date.now() > deadline) throw new Error(`withdrawals not final after ${timeoutMs} ms`);
      await sleep(200);
    }
    return final;
  }

  getBalance(): Promise<Answer> {
    return this.call('GET', '/me/balance', this.merchantKey);
  }
}

/** Attempts as `outcome (start–end s)`, times in seconds since the workload started: what a give-up saw. */
const describe = (attempts: Attempt[]): string =>
  attempts.map((a) => `${a.outcome} (${(a.start / 1000).toFixed(2)}–${(a.end / 1000).toFixed(2)} s)`).join(', ');

/** How many attempts had each outcome: `409 IDEMPOTENCY_CONFLICT×40 timeout×2`. */
const tally = (attempts: Attempt[]): string => {
  const n = new Map<string, number>();
  for (const a of attempts) n.set(a.outcome, (n.get(a.outcome) ?? 0) + 1);
  return [...n].map(([k, v]) => `${k}×${v}`).join(' ');
};

/** Answered and failed attempts per second over [from, to], and what the failures were. */
export function timeline(attempts: Attempt[], from: number, to: number): string[] {
  const lines: string[] = [];
  for (let t = Math.floor(from / 1000) * 1000; t < to; t += 1000) {
    const inSecond = attempts.filter((a) => a.end >= t && a.end < t + 1000);
    const failed = inSecond.filter((a) => !a.ok);
    lines.push(`${(t / 1000).toFixed(0).padStart(4)} s: ${inSecond.length - failed.length} answered, ${failed.length} failed ${tally(failed)}`);
  }
  return lines;
}

export const percentile = (xs: number[], p: number): number => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

/**
 * The unavailability around [from, to]: from the start of the first failed attempt to the end of the
 * first answered one after the last failure — the time during which a write could not be answered.
 */
export function unavailability(attempts: Attempt[], from: number, to: number): { windowMs: number; failed: number; firstFail: number; recovered: number } {
  const near = attempts.filter((a) => a.end >= from && a.start <= to);
  // A 409 "still in progress" is the service answering: a retried key whose first attempt was cut off
  // waits for that claim's release; it does not measure whether new writes are answered.
  const failed = near.filter((a) => !a.ok && !a.outcome.startsWith('409'));
  if (!failed.length) return { windowMs: 0, failed: 0, firstFail: NaN, recovered: NaN };
  const firstFail = Math.min(...failed.map((a) => a.start));
  const lastFail = Math.max(...failed.map((a) => a.end));
  const recovered = Math.min(...attempts.filter((a) => a.ok && a.start >= lastFail - 1).map((a) => a.end), Infinity);
  return { windowMs: recovered - firstFail, failed: failed.length, firstFail, recovered };
}
