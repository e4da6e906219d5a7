// docs/contract/due-date-charges.md#payer-payload: the key that signs the payer-side payloads is made at the first
// start and kept — two `pixgate api` processes, one after the other on one database, publish the same key set.
import { afterAll, expect, it } from 'vitest';
import pg from 'pg';
import { freePort, freshDatabase, startPixgate, type Proc } from '../fleet/processes.js';

const procs: Proc[] = [];
let drop: (() => Promise<void>) | undefined;
afterAll(async () => {
  for (const p of procs) {
    p.child.kill('SIGKILL');
    await p.exited;
  }
  await drop?.();
});

it('is made at the first start, before any payload is asked for, and every later process signs with it', async () => {
  const db = await freshDatabase();
  drop = db.drop;
  const keys = async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<{ kid: string }>('SELECT kid FROM payload_signing_keys')).rows.map((r) => r.kid);
    } finally {
      await c.end();
    }
  };
  expect(await keys()).toEqual([]);
  const [p1, p2] = [await freePort(), await freePort()];
  procs.push(await startPixgate('api', { DATABASE_URL: db.url, PORT: String(p1) }, /listening on/));
  const made = await keys();
  expect(made).toHaveLength(1);
  procs.push(await startPixgate('api', { DATABASE_URL: db.url, PORT: String(p2) }, /listening on/));
  expect(await keys()).toEqual(made);
  for (const port of [p1, p2]) {
    const jwks = (await (await fetch(`http://127.0.0.1:${port}/pix/v2/jwks`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toEqual(made);
  }
}, 240_000);
