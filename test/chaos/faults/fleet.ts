import net from 'node:net';
import type pg from 'pg';
import type { ServiceProcess } from './service.js';

export const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as net.AddressInfo;
    s.close(() => resolve(port));
  });
});

/**
 * Several API processes behind one address, as a load balancer would show them: each request goes to
 * the next API that is up; while all are down, requests wait for the first to come back.
 */
export class ApiFleet {
  private next = 0;

  constructor(private readonly apis: ServiceProcess[]) {}

  ready(): Promise<void> {
    return this.apis.some((a) => a.up) ? Promise.resolve() : Promise.any(this.apis.map((a) => a.ready()));
  }

  get baseUrl(): string {
    const up = this.apis.filter((a) => a.up);
    const from = up.length ? up : this.apis;
    return from[this.next++ % from.length]!.baseUrl;
  }
}

export const SUBSCRIBED = ['CHARGE_PAID', 'REFUND_COMPLETED', 'REFUND_FAILED', 'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Once every delivery settled (the receiver always answers 200): each (event, endpoint) pair has exactly
 * one successful attempt recorded, no attempt number is recorded twice, and the receiver got each event.
 */
export async function checkWebhooks(db: pg.Pool, arrivals: Map<string, number>, timeoutMs: number): Promise<{ pairs: number; attempts: number; redelivered: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ open: number }>(`SELECT count(*)::int AS open FROM event_endpoints WHERE state <> 'SUCCEEDED'`);
    if (rows[0]!.open === 0) break;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.open} webhook deliveries not succeeded after ${timeoutMs} ms`);
    await sleep(500);
  }
  const twice = await db.query(`SELECT endpoint_id, event_id, series, attempt, count(*)::int AS n FROM webhook_deliveries
    GROUP BY endpoint_id, event_id, series, attempt HAVING count(*) > 1`);
  if (twice.rows.length) throw new Error(`webhook attempts recorded twice: ${JSON.stringify(twice.rows.slice(0, 5))}`);
  const pairs = await db.query<{ event_id: string; successes: number }>(`SELECT ee.event_id,
      (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = ee.event_id AND d.endpoint_id = ee.endpoint_id AND d.success) AS successes
    FROM event_endpoints ee`);
  const wrong = pairs.rows.filter((p) => p.successes !== 1);
  if (wrong.length) throw new Error(`(event, endpoint) pairs without exactly one successful attempt: ${JSON.stringify(wrong.slice(0, 5))}`);
  const unseen = pairs.rows.filter((p) => !arrivals.has(p.event_id));
  if (unseen.length) throw new Error(`events recorded as delivered that the receiver never got: ${unseen.slice(0, 5).map((p) => p.event_id).join(' ')}`);
  // Every merchant has an endpoint for these types since before the workload: each such event went to one.
  const orphans = await db.query(`SELECT e.id, e.type FROM events e WHERE e.type = ANY($1)
    AND NOT EXISTS (SELECT 1 FROM event_endpoints ee WHERE ee.event_id = e.id)`, [SUBSCRIBED]);
  if (orphans.rows.length) throw new Error(`events that went to no endpoint: ${JSON.stringify(orphans.rows.slice(0, 5))}`);
  const attempts = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
  return { pairs: pairs.rows.length, attempts: attempts.rows[0]!.n, redelivered: [...arrivals.values()].filter((n) => n > 1).length };
}
