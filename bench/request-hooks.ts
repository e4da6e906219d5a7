/**
 * `node --import tsx bench/request-hooks.ts`: the CPU the fleet slice adds to every request — the in-flight
 * count (SIGTERM drain), the request metrics (counter + histogram) and the unknown-credential check of a
 * known key (one SHA-256 and a Map lookup) — measured in process on a trivial route through app.inject,
 * without and with the hooks, alternating, as CPU time per request (process.cpuUsage, best of 5 runs),
 * which a busy machine disturbs less than wall-clock rates; and the two costly parts alone, per call.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { trackInFlight } from '../src/platform/http/drain.js';
import { createAuthFailureLimiter, fingerprint, limitUnknownCredentials } from '../src/platform/http/auth-failure-limit.js';
import { observeRequest } from '../src/platform/metrics.js';

const N = Number(process.env.N ?? 30_000);

async function app(withHooks: boolean): Promise<FastifyInstance> {
  const a = Fastify({ logger: false });
  if (withHooks) {
    trackInFlight(a);
    a.addHook('onResponse', (req, reply, next) => {
      observeRequest(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime);
      next();
    });
    const limiter = createAuthFailureLimiter({ perSecond: 100, redis: null, prefix: 'bench:' });
    const key = `Bearer pxg_${'a'.repeat(40)}`;
    limiter.resolved(fingerprint(key));
    a.addHook('onRequest', limitUnknownCredentials(limiter, async () => {}));
  } else {
    a.addHook('onRequest', async () => {});
  }
  a.get('/me/balance/:id', async () => ({ data: { available: 0 } }));
  await a.ready();
  return a;
}

async function cpuPerRequest(a: FastifyInstance): Promise<number> {
  const headers = { authorization: `Bearer pxg_${'a'.repeat(40)}` };
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await a.inject({ method: 'GET', url: `/me/balance/${i % 50}`, headers });
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / N;
}

/** CPU per call of `f`, the best of 5 runs: the least disturbed by other processes. */
function cpuPerCall(n: number, f: (i: number) => unknown): number {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) f(i);
    const c = process.cpuUsage(c0);
    best = Math.min(best, ((c.user + c.system) * 1000) / n);
  }
  return best;
}

const observe = cpuPerCall(200_000, (i) => observeRequest('GET', '/me/balance', i % 7 ? 200 : 404, 1.3));
const hash = cpuPerCall(200_000, (i) => fingerprint(`Bearer pxg_${'a'.repeat(36)}${i % 1000}`));
console.log(`observeRequest (counter + histogram): ${observe.toFixed(0)} ns; credential fingerprint (SHA-256): ${hash.toFixed(0)} ns`);

const plain = await app(false);
const hooked = await app(true);
await cpuPerRequest(plain);
await cpuPerRequest(hooked); // warm-up
const runs: Array<[number, number]> = [];
for (let r = 0; r < 5; r++) runs.push([await cpuPerRequest(plain), await cpuPerRequest(hooked)]);
const best = (xs: number[]) => Math.min(...xs);
const [p, h] = [best(runs.map((x) => x[0])), best(runs.map((x) => x[1]))];
console.log(`inject, best of 5 runs of ${N}: without ${p.toFixed(1)} µs/request, with ${h.toFixed(1)} µs/request (+${(h - p).toFixed(1)} µs); load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
