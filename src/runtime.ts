import type pg from 'pg';
import type { Runner, TaskList } from 'graphile-worker';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { startWorker } from './platform/jobs.js';
import { Cursors } from './platform/pagination.js';
import { deriveKey } from './platform/secrets.js';

/** What every entry point (server, worker, CLI, tests) wires together from one Config and one pool. */
export interface Runtime {
  config: Config;
  pool: pg.Pool;
  cursors: Cursors;
}

export function createRuntime(config: Config, pool: pg.Pool): Runtime {
  return { config, pool, cursors: new Cursors(deriveKey(config.encryptionKey, 'cursor')) };
}

/** Background tasks of every slice, by name. */
export function taskList(_rt: Runtime): TaskList {
  return {};
}

export const buildHttp = (rt: Runtime, ready?: () => boolean) => buildApp({ ...rt, ready });
export const runWorker = (rt: Runtime, concurrency = 10): Promise<Runner> => startWorker(rt.pool, taskList(rt), { concurrency });
