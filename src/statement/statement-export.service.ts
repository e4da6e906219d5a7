import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../runtime.js';
import { connectionStringOf } from '../platform/db.js';
import { RateLimited } from '../platform/errors.js';
import { EXPORT_BUSY_EXIT_CODE, EXPORT_BUSY_RETRY_S } from './statement-export.rules.js';
import type { StatementAccount } from './statement.schemas.js';
import type { Range } from './statement.sql.js';

export interface ExportJob {
  format: 'csv' | 'ofx';
  merchantId: string;
  account: StatementAccount;
  range: Range;
}

/**
 * Why a process of its own: an export of a million lines makes V8 grow a heap of ~100 MB more (garbage of
 * rows, never more than one batch alive) in whichever process runs it, and the API process already sits
 * at ~170 MB; a small process with a small young generation holds an export under 100 MB
 * (docs/statement.md, "Memory"), and gives the memory back when it ends.
 */
const CHILD_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=64'];
/** Exports running at once per process; more wait their turn (each child is a process of ~50–90 MB). */
const MAX_CHILDREN = 2;

// Plain JS in one file with its packages (no node_modules needed beside it, under the data directory), for a child without
// tsx's loader (~50 MB); named by its content, so processes of different versions never share one.
const ENTRY = fileURLToPath(new URL('./statement-export.entry.ts', import.meta.url));
let script: Promise<string> | undefined;
function childScript(dataDir: string): Promise<string> {
  script ??= (async () => {
    const { build } = await import('esbuild');
    const out = await build({
      entryPoints: [ENTRY], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent',
      external: ['pg-native'], // pg's optional native driver, never loaded
      // Bundled CommonJS packages call require(), which an ES module lacks.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    const code = out.outputFiles[0]!.contents;
    const dir = join(dataDir, 'build'); // ours alone: code is run from it
    const file = join(dir, `statement-export-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, code);
      renameSync(tmp, file);
    }
    return file;
  })();
  script.catch(() => { script = undefined; }); // built again by the next export
  return script;
}

let running = 0;
const waiting: Array<() => void> = [];
async function slot(): Promise<() => void> {
  if (running >= MAX_CHILDREN) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

const busy = () => new RateLimited(
  `An export of this store is running; one at a time (retry in ${EXPORT_BUSY_RETRY_S} seconds)`, EXPORT_BUSY_RETRY_S,
);

/**
 * The export's bytes, made by a child process as they are read (the pipe's backpressure holds the child
 * back, so a slow download holds one batch). Resolves once the child holds the merchant's export lock —
 * its first bytes are there — so a second export of the merchant is refused (429) before any answer
 * starts. The client leaving stops the child; the child failing ends the download with an error instead
 * of a short file that looks complete.
 */
export async function exportInChild(rt: Runtime, job: ExportJob): Promise<Readable> {
  const release = await slot();
  let child: ChildProcessByStdio<null, Readable, null>;
  try {
    const file = await childScript(rt.config.dataDir);
    child = spawn(process.execPath, [...CHILD_FLAGS, file], {
      env: { ...process.env, DATABASE_URL: connectionStringOf(rt.pool), PIXGATE_STATEMENT_EXPORT: JSON.stringify(job) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  } catch (err) {
    release();
    throw err;
  }
  const exited = new Promise<number | null>((resolve, reject) => child.on('close', resolve).on('error', reject));
  void exited.then(release, release); // the slot is the child's until it ends
  // Readable with data: the child took the lock and writes the file; readable at its end with none: it exited.
  await Promise.race([once(child.stdout, 'readable'), exited]);
  if (child.stdout.readableLength === 0) {
    const code = await exited;
    if (code === EXPORT_BUSY_EXIT_CODE) throw busy();
    throw new Error(`statement export: the export process ended with ${code} before writing`);
  }
  const out = new PassThrough();
  out.on('close', () => child.kill());
  child.stdout.pipe(out, { end: false });
  void exited.then(
    (code) => (code === 0 ? out.end() : out.destroy(new Error(`statement export: the export process ended with ${code}`))),
    (err: Error) => out.destroy(err),
  );
  return out;
}
