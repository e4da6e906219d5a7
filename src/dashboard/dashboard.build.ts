import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../config.js';

export const WEB_ROOT = join(PROJECT_ROOT, 'web');
export const WEB_DIST = join(WEB_ROOT, 'dist');
// What the built dashboard is made of: a change to any of these makes web/dist stale.
const SOURCES = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** web/dist is missing or older than a source file (the sources ship in git; dist is built here). */
export function dashboardIsStale(): boolean {
  const index = join(WEB_DIST, 'index.html');
  if (!existsSync(index)) return existsSync(join(WEB_ROOT, 'index.html'));
  const built = statSync(index).mtimeMs;
  return SOURCES.some((s) => newestMtime(join(WEB_ROOT, s)) > built);
}

/**
 * Builds the dashboard when stale (`npm start`, the test setup). Vite is a development dependency: an
 * install without it must ship a built web/dist. The build goes to a private directory first and then
 * replaces web/dist, so a server or a second build running at the same time never sees half a build.
 */
export async function ensureDashboardBuilt(log: (line: string) => void = console.log): Promise<boolean> {
  if (!dashboardIsStale()) return false;
  const started = Date.now();
  const tmp = join(WEB_ROOT, `.dist-${process.pid}`);
  const { build } = await import('vite');
  await build({ configFile: join(WEB_ROOT, 'vite.config.ts'), build: { outDir: tmp, emptyOutDir: true }, logLevel: 'warn' });
  const old = join(WEB_ROOT, `.dist-old-${process.pid}`);
  try {
    if (existsSync(WEB_DIST)) renameSync(WEB_DIST, old);
    renameSync(tmp, WEB_DIST);
  } catch (err) {
    // Another process (a second test run) put its fresh build there between our two renames: keep it.
    if (!existsSync(join(WEB_DIST, 'index.html'))) throw err;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
  log(`dashboard built in ${Math.round((Date.now() - started) / 100) / 10} s (web/dist)`);
  return true;
}

// `node --import tsx src/dashboard/dashboard.build.ts`: the `prestart` and `build:web` step.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const force = process.argv.includes('--force');
  if (force) rmSync(join(WEB_DIST, 'index.html'), { force: true });
  ensureDashboardBuilt().then((built) => { if (!built) console.log('dashboard up to date (web/dist)'); }, (err: unknown) => {
    console.error('dashboard build failed:', err);
    process.exitCode = 1;
  });
}
