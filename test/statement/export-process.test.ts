import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { bigStatement as bigStatementOf, exportProcesses } from './support.js';

// Exports run in a process of their own (src/statement/statement-export.service.ts), over a real socket here.
let t: TestContext;
let base: string;
beforeAll(async () => {
  t = await createTestContext();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => { await t?.close(); });

const LINES = 100_000;
const bigStatement = (lines = LINES) => bigStatementOf(t, lines);

describe('an export runs in a process of its own', () => {
  it('streams the whole file; a download left half-way stops its process; a process that dies fails the download', async () => {
    const m = await bigStatement();
    const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${m.key}` } });

    const whole = await (await get('/me/statement.csv')).text();
    expect(whole.split('\r\n')).toHaveLength(1 + LINES + 1); // header, lines, the empty string after the last CRLF
    expect(exportProcesses()).toEqual([]);

    const left = new AbortController();
    const res = await fetch(`${base}/me/statement.ofx`, { headers: { authorization: `Bearer ${m.key}` }, signal: left.signal });
    const reader = res.body!.getReader();
    await reader.read();
    expect(exportProcesses()).toHaveLength(1);
    left.abort();
    await eventually(() => exportProcesses().length === 0, 5000);

    const killed = await get('/me/statement.csv');
    const body = killed.body!.getReader();
    await body.read();
    const [pid] = exportProcesses();
    process.kill(Number(pid), 'SIGKILL');
    await expect((async () => { for (;;) if ((await body.read()).done) return; })()).rejects.toThrow();
  });

  it('runs at most two at once per process; the others wait their turn and complete', async () => {
    // Four stores: one store runs one export at a time (docs/contract/statement.md#exports).
    const stores = [];
    for (let i = 0; i < 4; i++) stores.push(await bigStatement(30_000)); // one at a time: each takes a range of transaction ids
    let most = 0;
    const sampler = setInterval(() => { most = Math.max(most, exportProcesses().length); }, 20);
    const files = await Promise.all(stores.map(async (m) =>
      (await fetch(`${base}/me/statement.csv`, { headers: { authorization: `Bearer ${m.key}` } })).text()));
    clearInterval(sampler);
    for (const f of files) expect(f.split('\r\n')).toHaveLength(1 + 30_000 + 1);
    expect(most).toBe(2);
  });
});
