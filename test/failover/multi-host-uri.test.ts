import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sslAttempts } from '../../src/platform/multi-host-ssl.js';
import { parseConnectionUri } from '../../src/platform/multi-host-uri.js';

/** libpq's URI rules (PostgreSQL docs, "Connection URIs"), with an empty environment unless a case sets one. */
const parse = (uri: string, env: NodeJS.ProcessEnv = {}) => parseConnectionUri(uri, env);
const me = userInfo().username;

describe('DATABASE_URL read as libpq reads it', () => {
  it('the examples of the libpq documentation', () => {
    expect(parse('postgresql://localhost')).toMatchObject({ hosts: [{ host: 'localhost', port: 5432 }], user: me, database: me });
    expect(parse('postgresql://localhost:5433').hosts).toEqual([{ host: 'localhost', port: 5433 }]);
    expect(parse('postgresql://localhost/mydb').database).toBe('mydb');
    expect(parse('postgresql://user@localhost')).toMatchObject({ user: 'user', database: 'user' });
    expect(parse('postgresql://user:secret@localhost')).toMatchObject({ user: 'user', password: 'secret' });
    expect(parse('postgresql://other@localhost/otherdb?connect_timeout=10&application_name=myapp'))
      .toMatchObject({ user: 'other', database: 'otherdb', connectTimeout: 10, applicationName: 'myapp' });
    expect(parse('postgresql://host1:123,host2:456/somedb?target_session_attrs=any&application_name=myapp'))
      .toMatchObject({ hosts: [{ host: 'host1', port: 123 }, { host: 'host2', port: 456 }], database: 'somedb', targetSessionAttrs: 'any' });
    expect(parse('postgresql:///mydb?host=localhost&port=5433')).toMatchObject({ hosts: [{ host: 'localhost', port: 5433 }], database: 'mydb' });
    expect(parse('postgresql://[2001:db8::1234]/database').hosts).toEqual([{ host: '2001:db8::1234', port: 5432 }]);
    expect(parse('postgresql://[::1]:5433,[::1]:5434/d').hosts).toEqual([{ host: '::1', port: 5433 }, { host: '::1', port: 5434 }]);
    expect(parse('postgresql://%2Fvar%2Flib%2Fpostgresql/dbname').hosts).toEqual([{ host: '/var/lib/postgresql', port: 5432 }]);
  });

  it('the URI pg_autoctl show uri prints works as it is: no user means PGUSER, else the OS user', () => {
    const uri = 'postgres://@localhost:5501,localhost:5502/postgres?target_session_attrs=read-write&sslmode=prefer';
    expect(parse(uri)).toMatchObject({
      hosts: [{ host: 'localhost', port: 5501 }, { host: 'localhost', port: 5502 }],
      user: me, database: 'postgres', targetSessionAttrs: 'read-write', sslmode: 'prefer',
    });
    expect(parse(uri, { PGUSER: 'app' }).user).toBe('app');
    expect(parse(uri).password).toBeUndefined();
  });

  it('defaults: a host without a port takes PGPORT or 5432; no host the socket directory; sslmode prefer, any session', () => {
    expect(parse('postgres://h1,h2:5433/db').hosts).toEqual([{ host: 'h1', port: 5432 }, { host: 'h2', port: 5433 }]);
    expect(parse('postgres://h1,h2:5433/db', { PGPORT: '6000' }).hosts.map((h) => h.port)).toEqual([6000, 5433]);
    expect(parse('postgres:///db').hosts[0]!.host).toMatch(/^\/(var\/run\/postgresql|tmp)$/);
    expect(parse('postgres:///db', { PGHOST: 'dbhost', PGUSER: 'u', PGPASSWORD: 'pw', PGSSLMODE: 'require' }))
      .toMatchObject({ hosts: [{ host: 'dbhost', port: 5432 }], user: 'u', password: 'pw', sslmode: 'require', database: 'db' });
    expect(parse('postgres://h/')).toMatchObject({ sslmode: 'prefer', targetSessionAttrs: 'any', loadBalance: false, connectTimeout: 0 });
    expect(parse('postgres://h/?dbname=other&user=x').database).toBe('other');
  });

  it('percent-encoding in user, password and database; a query parameter wins over the authority', () => {
    expect(parse('postgres://us%40er:p%3Aw%2Fd%40@h/d%20b')).toMatchObject({ user: 'us@er', password: 'p:w/d@', database: 'd b' });
    expect(parse('postgres://u@h1:1,h2:2/db?host=a,b&port=7').hosts).toEqual([{ host: 'a', port: 7 }, { host: 'b', port: 7 }]);
    expect(parse('postgres://u@h/db?port=1,2&host=a,b').hosts).toEqual([{ host: 'a', port: 1 }, { host: 'b', port: 2 }]);
    expect(parse('postgres://h/db?hostaddr=10.0.0.1').hosts).toEqual([{ host: 'h', port: 5432, hostaddr: '10.0.0.1' }]);
  });

  it('ssl=true is sslmode=require (libpq accepts it for JDBC URIs); connect_timeout=1 is raised to 2', () => {
    expect(parse('postgres://h/db?ssl=true').sslmode).toBe('require');
    expect(parse('postgres://h/db?connect_timeout=1').connectTimeout).toBe(2);
    expect(parse('postgres://h/db?load_balance_hosts=random').loadBalance).toBe(true);
  });

  it('refuses what libpq refuses, and what Pixgate cannot honour', () => {
    expect(() => parse('mysql://h/db')).toThrow(/not a postgres/);
    expect(() => parse('postgres://h/db?sslmode=maybe')).toThrow(/invalid sslmode "maybe"/);
    expect(() => parse('postgres://h/db?target_session_attrs=writable')).toThrow(/invalid target_session_attrs/);
    expect(() => parse('postgres://h:99999/db')).toThrow(/invalid port "99999"/);
    expect(() => parse('postgres://h:x/db')).toThrow(/invalid port "x"/);
    expect(() => parse('postgres://h/db?port=1,2,3&host=a,b')).toThrow(/3 ports for 2 hosts/);
    expect(() => parse('postgres://h/db?frobnicate=1')).toThrow(/unsupported parameter "frobnicate"/);
    expect(() => parse('postgres://h/db?requirepeer=postgres')).toThrow(/unsupported parameter "requirepeer"/);
    expect(() => parse('postgres://[::1/db')).toThrow(/IPv6/);
    expect(() => parse('postgres://h/db?connect_timeout=soon')).toThrow(/connect_timeout/);
  });
});

describe('sslmode as libpq means it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pixgate-ssl-'));
  const root = join(dir, 'root.crt');
  writeFileSync(root, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
  const missing = join(dir, 'none.crt');
  const attempts = (q: string) => sslAttempts(parse(`postgres://h/db?${q}`));

  it('disable is plain; allow plain then TLS; prefer TLS then plain; require encrypts without checking', () => {
    expect(attempts('sslmode=disable')).toEqual([false]);
    expect(attempts(`sslmode=allow&sslrootcert=${missing}`)).toEqual([false, { rejectUnauthorized: false }]);
    expect(attempts(`sslmode=prefer&sslrootcert=${missing}`)).toEqual([{ rejectUnauthorized: false }, false]);
    expect(attempts(`sslmode=require&sslrootcert=${missing}`)).toEqual([{ rejectUnauthorized: false }]);
  });

  it('verify-full checks chain and name; verify-ca (and require with a root certificate) the chain only', () => {
    const [full] = attempts(`sslmode=verify-full&sslrootcert=${root}`) as [Record<string, unknown>];
    expect(full).toMatchObject({ rejectUnauthorized: true });
    expect(String(full.ca)).toContain('BEGIN CERTIFICATE');
    expect(full.checkServerIdentity).toBeUndefined();
    for (const mode of ['verify-ca', 'require']) {
      const [ca] = attempts(`sslmode=${mode}&sslrootcert=${root}`) as [Record<string, unknown>];
      expect(ca).toMatchObject({ rejectUnauthorized: true });
      expect(typeof ca.checkServerIdentity).toBe('function');
    }
    expect(attempts('sslmode=verify-full&sslrootcert=system')).toEqual([{ rejectUnauthorized: true }]);
  });

  it('verify-ca and verify-full without a root certificate are refused, as libpq refuses them', () => {
    expect(() => attempts(`sslmode=verify-full&sslrootcert=${missing}`)).toThrow(/needs a root certificate/);
    expect(() => attempts(`sslmode=verify-ca&sslrootcert=${missing}`)).toThrow(/needs a root certificate/);
  });
});
