// Security review (issue 11): the generated ADMIN_TOKEN and ENCRYPTION_KEY files are created exclusively,
// so processes starting together on a new data dir agree on them; an ADMIN_TOKEN under 32 characters is refused.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, PROJECT_ROOT } from '../../src/config.js';

// Each child spins until the same instant, so the loads really meet (the window is microseconds wide).
const CHILD = `import { loadConfig } from './src/config.ts';
while (Date.now() < Number(process.argv[2]));
const c = loadConfig({}, { dataDir: process.argv[1] });
console.log(JSON.stringify({ admin: c.adminToken, key: c.encryptionKey.toString('hex'), generated: c.generated }));`;

function loadInChild(dataDir: string, at: number): Promise<{ admin: string; key: string; generated: { adminToken: boolean; encryptionKey: boolean } }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, dataDir, String(at)], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(out))));
  });
}

describe('generated operator secrets', () => {
  it('processes starting together on a new data dir all use the one secret that was saved', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'pixgate-secrets-')), 'data');
    const at = Date.now() + 8000;
    const loaded = await Promise.all(Array.from({ length: 4 }, () => loadInChild(dataDir, at)));
    const saved = { admin: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim(), key: readFileSync(join(dataDir, 'encryption-key'), 'utf8').trim() };
    for (const l of loaded) expect({ admin: l.admin, key: l.key }).toEqual(saved);
    expect(loaded.filter((l) => l.generated.adminToken)).toHaveLength(1);
    expect(loaded.filter((l) => l.generated.encryptionKey)).toHaveLength(1);
    expect(saved.admin.length).toBeGreaterThanOrEqual(32);
  }, 60_000);

  it('a process that finds the file just created, still empty, waits for the winner\'s secret', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pixgate-secrets-'));
    const path = join(dataDir, 'admin-token');
    const winner = 'winner-token-'.padEnd(40, 'w');
    // The winner as another process sees it: created exclusively, its content written a moment later.
    const writer = spawn(process.execPath, ['-e', `const fs = require('node:fs'); fs.writeFileSync(process.argv[1], '', { flag: 'wx' });
      setTimeout(() => fs.writeFileSync(process.argv[1], process.argv[2] + '\\n'), 500);`, path, winner], { stdio: 'ignore' });
    const done = new Promise((r) => writer.once('exit', r));
    for (let i = 0; i < 200 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 10));
    const config = loadConfig({ ENCRYPTION_KEY: randomBytes(32).toString('hex') }, { dataDir });
    await done;
    expect(config.adminToken).toBe(winner);
    expect(config.generated.adminToken).toBe(false);
  });

  it('two loads in one process: the second reads what the first saved; a file written by hand is read as it is', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pixgate-secrets-'));
    const first = loadConfig({}, { dataDir });
    const second = loadConfig({}, { dataDir });
    expect(second.adminToken).toBe(first.adminToken);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    expect(second.generated).toEqual({ adminToken: false, encryptionKey: false });
    const own = 'operator-chosen-token-'.padEnd(40, 'z');
    writeFileSync(join(dataDir, 'admin-token'), own); // no trailing newline
    expect(loadConfig({}, { dataDir }).adminToken).toBe(own);
  });
});

describe('ADMIN_TOKEN length', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pixgate-secrets-'));
  const key = randomBytes(32).toString('hex');
  it('is refused under 32 characters with a message that says so', () => {
    for (const token of ['secret', 'x'.repeat(31)]) {
      expect(() => loadConfig({ ADMIN_TOKEN: token, ENCRYPTION_KEY: key }, { dataDir })).toThrow('ADMIN_TOKEN must be at least 32 characters');
    }
    writeFileSync(join(dataDir, 'admin-token'), 'short\n');
    expect(() => loadConfig({ ENCRYPTION_KEY: key }, { dataDir })).toThrow('ADMIN_TOKEN must be at least 32 characters');
  });

  it('is accepted from 32 characters', () => {
    expect(loadConfig({ ADMIN_TOKEN: 'x'.repeat(32), ENCRYPTION_KEY: key }, { dataDir }).adminToken).toBe('x'.repeat(32));
  });
});
