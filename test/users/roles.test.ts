import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type Reply, type TestContext, type TestUser } from '../support/context.js';

// docs/contract/access.md#roles, the roles table: each role, and an API key of each key role
// (docs/contract/access.md#key-roles), against each class of action, over HTTP.
let t: TestContext;
let merchant: { id: string; key: string };
const users: Record<string, TestUser> = {};
const keys: Record<string, string> = {};
beforeAll(async () => {
  t = await createTestContext({}, { worker: false });
  merchant = await t.merchant();
  for (const role of ['OWNER', 'DEVELOPER', 'FINANCE', 'VIEWER']) users[role] = await t.user(merchant.id, role);
  // The operator's key is FULL; the others are minted by the OWNER with their role.
  keys.FULL = merchant.key;
  for (const role of ['FINANCE', 'DEVELOPER', 'VIEWER']) {
    const made = await t.request('POST', '/me/api-keys', { key: users.OWNER!.token, body: { name: `${role} key`, role } });
    if (made.status !== 201) throw new Error(`key create failed: ${made.raw}`);
    keys[role] = made.body.data.key;
  }
});
afterAll(async () => { await t?.close(); });

type Role = 'OWNER' | 'DEVELOPER' | 'FINANCE' | 'VIEWER';
type KeyCaller = 'key FULL' | 'key FINANCE' | 'key DEVELOPER' | 'key VIEWER';
type Caller = Role | KeyCaller;
const KEYS: KeyCaller[] = ['key FULL', 'key FINANCE', 'key DEVELOPER', 'key VIEWER'];
const CALLERS: Caller[] = ['OWNER', 'DEVELOPER', 'FINANCE', 'VIEWER', ...KEYS];
const isKey = (c: Caller): c is KeyCaller => c.startsWith('key ');
const keyOf = (c: Caller) => (isKey(c) ? keys[c.slice(4)]! : users[c]!.token);
/** A row of the roles table: those roles, and the keys of those roles (a FULL key has the OWNER's rights but API keys and the team). */
const row = (...roles: Role[]): Caller[] => [...roles, ...(roles.includes('OWNER') ? ['key FULL' as const] : []), ...roles.map((r) => `key ${r}` as Caller).filter((c) => KEYS.includes(c as KeyCaller))];
/** Routes that take a session only: no API key, whatever its role. */
const SESSION_ONLY = new Set(['API keys: list', 'API keys: create', 'team: list', 'team: invite', 'team: change a role', 'team: remove']);
let n = 0;

/** One representative request per action class; `allowed` means anything but 403. */
const ACTIONS: Array<{ name: string; allowed: Caller[]; run: (key: string) => Promise<Reply> }> = [
  { name: 'read: balance', allowed: CALLERS, run: (key) => t.request('GET', '/me/balance', { key }) },
  { name: 'read: charges list', allowed: CALLERS, run: (key) => t.request('GET', '/transparents/list', { key }) },
  { name: 'read: withdrawals, webhooks', allowed: CALLERS, run: async (key) => {
    const w = await t.request('GET', '/withdrawals', { key });
    return w.status === 403 ? w : t.request('GET', '/webhooks', { key });
  } },
  { name: 'operate: create a charge', allowed: row('OWNER', 'DEVELOPER', 'FINANCE'),
    run: (key) => t.request('POST', '/transparents/create', { key, body: { method: 'PIX', amount: 1000 } }) },
  { name: 'operate: create a customer', allowed: row('OWNER', 'DEVELOPER', 'FINANCE'),
    run: (key) => t.request('POST', '/customers', { key, body: { email: `c${n++}@example.com` } }) },
  { name: 'operate: delete a customer', allowed: row('OWNER', 'DEVELOPER', 'FINANCE'), run: async (key) => {
    const c = await t.request('POST', '/customers', { key: merchant.key, body: { email: `d${n++}@example.com` } });
    return t.request('DELETE', `/customers/${c.body.data.id}`, { key });
  } },
  { name: 'money: refund', allowed: row('OWNER', 'FINANCE'), run: (key) => t.request('POST', '/transparents/refund?id=chg_unknown', { key }) },
  { name: 'money: withdrawal', allowed: row('OWNER', 'FINANCE'),
    run: (key) => t.request('POST', '/withdrawals', { key, body: { amount: 1000, pixKey: 'a@example.com', pixKeyType: 'EMAIL' } }) },
  { name: 'developer: create a webhook endpoint', allowed: row('OWNER', 'DEVELOPER'),
    run: (key) => t.request('POST', '/webhooks', { key, body: { url: `https://example.com/hook/${n++}`, events: ['CHARGE_PAID'] } }) },
  { name: 'developer: delete a webhook endpoint', allowed: row('OWNER', 'DEVELOPER'), run: async (key) => {
    const w = await t.request('POST', '/webhooks', { key: merchant.key, body: { url: `https://example.com/del/${n++}`, events: ['CHARGE_PAID'] } });
    return t.request('DELETE', `/webhooks/${w.body.data.id}`, { key });
  } },
  { name: 'API keys: list', allowed: ['OWNER', 'DEVELOPER'], run: (key) => t.request('GET', '/me/api-keys', { key }) },
  { name: 'API keys: create', allowed: ['OWNER', 'DEVELOPER'], run: (key) => t.request('POST', '/me/api-keys', { key, body: { name: 'ci' } }) },
  { name: 'team: list', allowed: ['OWNER', 'DEVELOPER', 'FINANCE', 'VIEWER'], run: (key) => t.request('GET', '/me/users', { key }) },
  { name: 'team: invite', allowed: ['OWNER'], run: (key) => t.request('POST', '/me/users', { key, body: { email: `u${n++}@example.com`, name: 'U', role: 'VIEWER' } }) },
  { name: 'team: change a role', allowed: ['OWNER'], run: async (key) => {
    const inv = await t.request('POST', '/me/users', { key: users.OWNER!.token, body: { email: `p${n++}@example.com`, name: 'P', role: 'VIEWER' } });
    return t.request('PATCH', `/me/users/${inv.body.data.user.id}`, { key, body: { role: 'FINANCE' } });
  } },
  { name: 'team: remove', allowed: ['OWNER'], run: async (key) => {
    const inv = await t.request('POST', '/me/users', { key: users.OWNER!.token, body: { email: `r${n++}@example.com`, name: 'R', role: 'VIEWER' } });
    return t.request('DELETE', `/me/users/${inv.body.data.user.id}`, { key });
  } },
  { name: 'operate: simulate a payment', allowed: row('OWNER', 'DEVELOPER', 'FINANCE'), run: async (key) => {
    const c = await t.request('POST', '/transparents/create', { key: merchant.key, body: { method: 'PIX', amount: 1000 } });
    return t.request('POST', `/transparents/simulate-payment?id=${c.body.data.id}`, { key });
  } },
];

describe.each(ACTIONS)('$name', ({ name, allowed, run }) => {
  it.each(CALLERS)('%s', async (caller) => {
    const res = await run(keyOf(caller));
    if (allowed.includes(caller)) {
      expect(res.status, res.raw).not.toBe(403);
      expect(res.status, res.raw).toBeLessThan(500);
    } else {
      expect(res.status, res.raw).toBe(403);
      expect(res.body.error).toBe('FORBIDDEN');
      // The message names the role, or the key's role; an API key on a session-only route is told to log in, and still hears its role.
      if (isKey(caller) && SESSION_ONLY.has(name)) expect(res.body.message).toMatch(/^API keys cannot/);
      expect(res.body.message).toMatch(new RegExp(`\\b${caller.replace('key ', '')}\\b`));
    }
  });
});

it('a key refused by its role is 403 before body validation, its message naming the key role', async () => {
  const res = await t.request('POST', '/withdrawals', { key: keys.DEVELOPER!, body: { amount: 'lots' } });
  expect(res.status).toBe(403);
  expect(res.body.message).toBe('API key role DEVELOPER may not do this');
});

it('a refused role is 403 before body validation', async () => {
  const res = await t.request('POST', '/withdrawals', { key: users.VIEWER!.token, body: { amount: 'lots' } });
  expect(res.status).toBe(403);
});
