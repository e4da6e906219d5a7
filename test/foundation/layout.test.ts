import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// The layout rules of docs/architecture.md that imports cannot show (the import rules are
// .dependency-cruiser.cjs, run by `npm test` before this).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) files(path, out);
    else out.push(path);
  }
  return out;
}
const sources = files('src').filter((f) => f.endsWith('.ts'));

const ROLES = ['routes', 'schemas', 'service', 'sql', 'ledger', 'tasks', 'view', 'rules', 'hooks', 'crypto', 'client', 'provider', 'port', 'metrics', 'cli', 'build', 'entry'];
/** Named by topic alone: the library folders, the top-level files and a folder's public entry. */
const topicOnly = (f: string) => /^src\/(platform|ledger|pix)\//.test(f) || /^src\/[^/]+\.ts$/.test(f) || f.endsWith('/index.ts');

it('every slice file is <topic>.<role>.ts with a role of docs/architecture.md', () => {
  const pattern = new RegExp(`^[a-z0-9]+(-[a-z0-9]+)*\\.(${ROLES.join('|')})\\.ts$`);
  const misnamed = sources.filter((f) => !topicOnly(f) && !pattern.test(f.split('/').pop()!));
  expect(misnamed).toEqual([]);
  // The library folders too: a file there that plays a slice role says so the same way.
  expect(sources.filter((f) => topicOnly(f) && !/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z]+)?\.ts$/.test(f.split('/').pop()!))).toEqual([]);
});

/**
 * SQL text lives in `*.sql.ts`, `ledger/`, the job-queue module and the database plumbing of platform/
 * (connections, migrations, primary detection, keyset pages) — never beside a service's rules.
 * Transaction control (BEGIN, SAVEPOINT, ...) is not a statement on a table and is not looked for.
 */
const SQL_HOME = /(\.sql\.ts$|^src\/ledger\/|^src\/platform\/(jobs|job-queue-internals|db|database|migrate|multi-host|pagination)\.ts$)/;
const STATEMENT = /\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|LOCK\s+TABLE)/;

it('SQL statements are written only in *.sql.ts, ledger/, the job-queue module and platform/\'s database plumbing', () => {
  const misplaced: string[] = [];
  for (const f of sources.filter((s) => !SQL_HOME.test(s))) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(/`([^`]*)`|'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)) {
      const literal = m[1] ?? m[2] ?? m[3] ?? '';
      if (STATEMENT.test(literal)) misplaced.push(`${f}: ${literal.slice(0, 60)}`);
    }
  }
  expect(misplaced).toEqual([]);
});

it('finds SQL where it looks (the check can fail)', () => {
  expect(STATEMENT.test("SELECT pg_advisory_xact_lock($1)")).toBe(true);
  expect(STATEMENT.test('UPDATE idempotency_keys SET status_code = $4')).toBe(true);
  expect(STATEMENT.test('Select a role')).toBe(false);
});

/** Every folder of src/ (and web/src, migrations/) has a README whose table has the same rows. */
const README_ROWS = ['What belongs here', 'Entry points', 'Rules', 'Docs'];
const folders = [...new Set([...sources, ...files('migrations')].map((f) => relative(ROOT, join(ROOT, f, '..'))))]
  .filter((d) => d !== 'src').concat('web/src');

it('every folder has a README with the table: what belongs here, entry points, rules, docs', () => {
  const missing: string[] = [];
  for (const dir of folders) {
    let text = '';
    try {
      text = readFileSync(join(ROOT, dir, 'README.md'), 'utf8');
    } catch {
      missing.push(`${dir}: no README.md`);
      continue;
    }
    const rows = [...text.matchAll(/^\| \*\*([^*|]+)\*\* \|/gm)].map((m) => m[1]!.trim());
    if (rows.join('/') !== README_ROWS.join('/')) missing.push(`${dir}: table rows ${JSON.stringify(rows)}`);
  }
  expect(missing).toEqual([]);
});
