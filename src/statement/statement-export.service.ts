import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../runtime.js';
import { connectionStringOf } from '../platform/db.js';
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

/**
 * The export's bytes, made by a child process as they are read (the pipe's backpressure holds the child
 * back, so a slow download holds one batch). The client leaving stops the child; the child failing ends
 * the download with an error instead of a short file that looks complete.
 */
export function exportInChild(rt: Runtime, job: ExportJob): Readable {
  const out = new PassThrough();
  void (async () => {
    const release = await slot();
    try {
      const file = await childScript(rt.config.dataDir);
      if (out.destroyed) return;
      const child = spawn(process.execPath, [...CHILD_FLAGS, file], {
        env: { ...process.env, DATABASE_URL: connectionStringOf(rt.pool), PIXGATE_STATEMENT_EXPORT: JSON.stringify(job) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      out.on('close', () => child.kill());
      child.stdout.pipe(out, { end: false });
      const code = await new Promise<number | null>((resolve, reject) => child.on('close', resolve).on('error', reject));
      if (code === 0) out.end();
      else out.destroy(new Error(`statement export: the export process ended with ${code}`));
    } finally {
      release();
    }
  })().catch((err: Error) => out.destroy(err));
  return out;
}
