import type { Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { cpuMeter } from './lib/cpu.js';
import { closedLoop, figures, metered, openLoop, type Operation } from './lib/load.js';
import { RequestFailed } from './lib/http.js';
import { printTable, summarise, type Figures } from './lib/stats.js';

const PASSWORD = 'bench password 123';

/**
 * Dashboard auth (docs/contract/access.md#login): the login rate (one scrypt hash per login), the time of a failed
 * login for an unknown e-mail against a wrong password (they must not tell the two apart), and one
 * merchant route (GET /me/balance) authenticated by an API key, a session JWT and the session cookie
 * at the same offered rate: the session check must cost no more than the key check.
 */
export const auth: Benchmark = {
  name: 'auth',
  describe: 'login rate; GET /me/balance with an API key vs a session JWT vs the cookie',
  async run({ server, quick }) {
    return withPixgate(server, {}, async ({ pixgate, fx, pool }) => {
      const m = await fx.merchant();
      const users = await Promise.all(Array.from({ length: 4 }, async (_, i) => {
        const email = `bench-${i}@example.com`;
        const invited = await fx.admin.json('POST', `/admin/merchants/${m.id}/users`, { email, name: 'Bench', role: 'OWNER' }, 201);
        await fx.api.json('POST', `/auth/invitations/${String(invited.data.invitation.url).split('/').pop()}/accept`, { password: PASSWORD });
        return email;
      }));
      const login = async (email: string, password: string, expect: number) => {
        const res = await fx.api.request('POST', '/auth/login', { email, password });
        if (res.status !== expect) throw new RequestFailed(String(res.status), res.text.slice(0, 200));
        return res.text;
      };
      const token = JSON.parse(await login(users[0]!, PASSWORD, 200)).data.token as string;
      const meter = cpuMeter(pixgate.child.pid!);
      const rows: Figures[] = [];

      // Logins: the hash dominates; a closed loop of 4 (one per libuv thread) gives the rate.
      const loginOp: Operation = (i) => login(users[i % users.length]!, PASSWORD, 200).then(() => {});
      await closedLoop({ concurrency: 2, durationMs: 500, op: loginOp });
      const loginRate = await closedLoop({ concurrency: 4, durationMs: quick ? 2000 : 5000, op: loginOp });
      const loginRun = await metered(meter, () => openLoop({ rate: Math.max(1, loginRate * 0.7), durationMs: quick ? 2000 : 5000, op: loginOp }));
      rows.push(figures('POST /auth/login (right password)', Math.max(1, loginRate * 0.7), loginRun, `closed-loop rate ${loginRate.toFixed(1)}/s`));

      // Failed logins one at a time, alternating; the failure counters are cleared between (5 per e-mail in 15 min, 20 per
      // address a minute would refuse them).
      const unknown: number[] = [];
      const wrong: number[] = [];
      for (let i = 0; i < (quick ? 10 : 30); i++) {
        await pool.query('DELETE FROM auth_failures');
        let t0 = performance.now();
        await login(`nobody-${i}@example.com`, PASSWORD, 401);
        unknown.push(performance.now() - t0);
        t0 = performance.now();
        await login(users[1]!, 'not the password', 401);
        wrong.push(performance.now() - t0);
      }
      rows.push(summarise('login: unknown e-mail (401)', unknown, { rate: 0, errors: 0, elapsedMs: 0 }));
      rows.push(summarise('login: wrong password (401)', wrong, { rate: 0, errors: 0, elapsedMs: 0 }));

      // One merchant route with each credential, in turns, at the same rate.
      const callers: Array<[string, Record<string, string>]> = [
        ['GET /me/balance, API key', { authorization: `Bearer ${m.key}` }],
        ['GET /me/balance, session JWT', { authorization: `Bearer ${token}` }],
        ['GET /me/balance, session cookie', { cookie: `pxg_session=${token}` }],
      ];
      const opOf = (headers: Record<string, string>): Operation => async () => {
        const res = await fx.api.request('GET', '/me/balance', undefined, headers);
        if (res.status !== 200) throw new RequestFailed(String(res.status));
      };
      for (const [, headers] of callers) await closedLoop({ concurrency: 8, durationMs: 300, op: opOf(headers) });
      const estimate = await closedLoop({ concurrency: 16, durationMs: quick ? 700 : 1500, op: opOf(callers[0]![1]) });
      const rate = Math.max(50, Math.round(estimate * 0.6));
      const rounds = quick ? 1 : 2;
      const durationMs = quick ? 1500 : 3000;
      for (let round = 0; round < rounds; round++) {
        for (const [label, headers] of callers) {
          const r = await metered(meter, () => openLoop({ rate, durationMs, op: opOf(headers) }));
          rows.push(figures(`${label} (round ${round + 1})`, rate, r));
        }
      }
      const cpuOf = (label: string) => {
        const own = rows.filter((r) => r.label.startsWith(label));
        return own.reduce((s, r) => s + (Number.isFinite(r.cpuServer) ? r.cpuServer! : 0) + (Number.isFinite(r.cpuDb) ? r.cpuDb! : 0), 0) / own.length;
      };
      const [key, jwt, cookie] = callers.map(([label]) => cpuOf(label));
      return printTable('dashboard auth: login, and one merchant route per credential', rows, [
        `Login: one scrypt hash (N=2^15, r=8, p=1) per attempt, known e-mail or not. Closed-loop login rate: **${loginRate.toFixed(1)}/s**.`,
        `Failed login p50: unknown e-mail ${rows[1]!.p50.toFixed(0)} ms, wrong password ${rows[2]!.p50.toFixed(0)} ms.`,
        `GET /me/balance at ${rate}/s, ${rounds} round(s) of ${durationMs / 1000} s each: server+db CPU per request — API key ${key!.toFixed(3)} ms, ` +
          `JWT ${jwt!.toFixed(3)} ms (${((jwt! / key!) * 100).toFixed(0)}% of the key's), cookie ${cookie!.toFixed(3)} ms. ` +
          'Both checks are one primary-key or unique-index read; the JWT adds an HMAC-SHA256 verification in process.',
      ]);
    });
  },
};
