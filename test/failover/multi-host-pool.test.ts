import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createPool } from '../../src/platform/db.js';

/**
 * The pool against the machine's PostgreSQL with a multi-host URI: a host that refuses is skipped, a
 * server whose sessions are read-only is not chosen for read-write, and the pool chooses again by itself
 * when the server it uses turns read-only and back (a demotion seen on one server; test/failover/ runs
 * the real failover between two).
 */
const server = new URL(inject('serverUrl'));
const dbName = `pixgate_t${process.pid}_mh_${randomBytes(3).toString('hex')}`;
let admin: pg.Client;

const closedPort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as net.AddressInfo;
    s.close(() => resolve(port));
  });
});
const auth = () => `${encodeURIComponent(decodeURIComponent(server.username))}${server.password ? `:${server.password}` : ''}@`;
const live = () => `${server.hostname}:${server.port}`;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const setup = new pg.Client({ connectionString: Object.assign(new URL(server.toString()), { pathname: `/${dbName}` }).toString() });
  await setup.connect();
  await setup.query('CREATE TABLE t (n int)');
  await setup.end();
});

afterAll(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

const readOnly = async (on: boolean) => {
  await admin.query(on ? `ALTER DATABASE ${dbName} SET default_transaction_read_only = on` : `ALTER DATABASE ${dbName} RESET default_transaction_read_only`);
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
};

describe('a pool on a multi-host DATABASE_URL', () => {
  it('skips a host that refuses and writes to the one that answers read-write', async () => {
    const pool = createPool(`postgres://${auth()}127.0.0.1:${await closedPort()},${live()}/${dbName}?target_session_attrs=read-write`, 2);
    try {
      await pool.query('INSERT INTO t VALUES (1)');
      const { rows } = await pool.query<{ port: number }>('SELECT inet_server_port() AS port');
      expect(rows[0]!.port).toBe(Number(server.port));
    } finally {
      await pool.end();
    }
  });

  it('does not choose a read-only server for read-write; follows it when it turns read-only and back, without a new pool', async () => {
    const pool = createPool(`postgres://${auth()}127.0.0.1:${await closedPort()},${live()}/${dbName}?target_session_attrs=read-write&sslmode=disable`, 3);
    try {
      await pool.query('INSERT INTO t VALUES (2)');
      await readOnly(true);
      // The pool's connections were cut; every new one finds the only server read-only.
      let err: { code?: string; message?: string } | null = null;
      // Until every host is known unfit, a try may still land on the read-only server and be refused there
      // (25006: a new connection whose role check fails, or one the terminate has not reached yet; 57P01: one
      // it reached mid-query); every try is refused, and the pool then says there is no read-write server.
      const refused = new Set<string | undefined>();
      for (let i = 0; i < 50 && err?.code !== '08001'; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        err = await pool.query('INSERT INTO t VALUES (3)').then(() => null, (e) => e);
        refused.add(err ? err.code : 'written');
      }
      expect([...refused].filter((c) => !['25006', '57P01', '08001'].includes(c!))).toEqual([]);
      expect(err?.code).toBe('08001');
      expect(err?.message).toMatch(new RegExp(`no read-write PostgreSQL server: .*ECONNREFUSED.*${live()} is read-only`));
      await readOnly(false);
      await expect(pool.query('INSERT INTO t VALUES (4)')).resolves.toBeTruthy();
    } finally {
      await readOnly(false);
      await pool.end();
    }
  });

  it('target_session_attrs=any takes the first host that answers, even a read-only one', async () => {
    await readOnly(true);
    const pool = createPool(`postgres://${auth()}${live()},127.0.0.1:${await closedPort()}/${dbName}`, 1);
    try {
      const { rows } = await pool.query<{ ro: string }>(`SELECT current_setting('transaction_read_only') AS ro`);
      expect(rows[0]!.ro).toBe('on');
    } finally {
      await readOnly(false);
      await pool.end();
    }
  });
});
