import type pg from 'pg';
import type { Runner, TaskList } from 'graphile-worker';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { chargeTasks } from './charges/charge.tasks.js';
import { withdrawalTasks } from './withdrawals/withdrawal.tasks.js';
import { webhookTasks } from './webhooks/webhook.tasks.js';
import { startWorker } from './platform/jobs.js';
import { Cursors } from './platform/pagination.js';
import { deriveKey } from './platform/secrets.js';
import type { PixProvider } from './providers/provider.js';
import { createSimulator } from './providers/simulator/simulator.js';

/** What every entry point (server, worker, CLI, tests) wires together from one Config and one pool. */
export interface Runtime {
  config: Config;
  pool: pg.Pool;
  cursors: Cursors;
  provider: PixProvider;
}

export function createRuntime(config: Config, pool: pg.Pool): Runtime {
  const rt = { config, pool, cursors: new Cursors(deriveKey(config.encryptionKey, 'cursor')) } as Runtime;
  rt.provider = createSimulator(rt);
  return rt;
}

/** Background tasks of every slice, by name. */
export function taskList(rt: Runtime): TaskList {
  return { ...chargeTasks(rt), ...withdrawalTasks(rt), ...webhookTasks(rt) };
}

export const buildHttp = (rt: Runtime, ready?: () => boolean, logStream?: NodeJS.WritableStream) => buildApp(rt, ready, logStream);
export const runWorker = (rt: Runtime, concurrency = 10): Promise<Runner> => startWorker(rt.pool, taskList(rt), { concurrency });
