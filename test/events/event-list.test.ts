import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/event.schemas.js';
import { createTestContext, type TestContext } from '../support/context.js';

// One event list: src/events/event.schemas.ts. The database's constraint on subscribable names is written
// by migrations, so this test is what makes an event added to the list come with its migration.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

it('webhook_endpoints_event_names allows exactly EVENT_TYPES (a new event needs a migration that replaces the constraint)', async () => {
  const { rows } = await t.pool.query<{ def: string }>(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'webhook_endpoints_event_names'`);
  expect(rows).toHaveLength(1);
  const names = [...rows[0]!.def.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]);
  expect([...names].sort()).toEqual([...EVENT_TYPES].sort());
});
