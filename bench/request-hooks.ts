/**
 * `node --import tsx bench/request-hooks.ts`: the CPU the fleet slice adds to every request — the in-flight
 * count (SIGTERM drain), the request metrics (counter + histogram) and the unknown-credential check of a
 * known key (one SHA-256 and a Map lookup) — measured in process on a trivial route through app.inject,
 * without and with the hooks, alternating, as CPU time per request (process.cpuUsage), which a busy
 * machine disturbs far less than wall-clock rates.
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

const plain = await app(false);
const hooked = await app(true);
await cpuPerRequest(plain);
await cpuPerRequest(hooked); // warm-up
const rounds: Array<[number, number]> = [];
for (let r = 0; r < 3; r++) rounds.push([await cpuPerRequest(plain), await cpuPerRequest(hooked)]);
for (const [p, h] of rounds) console.log(`without ${p.toFixed(1)} µs/request, with ${h.toFixed(1)} µs/request: +${(h - p).toFixed(1)} µs`);
const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
console.log(`median added CPU per request: ${median(rounds.map(([p, h]) => h - p)).toFixed(1)} µs (${N} requests per run, inject, load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`);
