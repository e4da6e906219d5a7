import { enqueue } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';

/** However long a result takes, it is asked for at least this often. */
const MAX_POLL_DELAY_MS = 10 * 60_000;

/**
 * Schedules the next look at a devolução or payout: API_PIX_POLL_INTERVAL_MS doubling per attempt up
 * to MAX_POLL_DELAY_MS. One job key per record, so a new schedule replaces a waiting one.
 */
export function schedulePoll(rt: Runtime, task: string, id: string, attempt: number): Promise<void> {
  const delay = Math.min(rt.config.apiPix!.pollIntervalMs * 2 ** Math.min(attempt, 20), MAX_POLL_DELAY_MS);
  return enqueue(rt.pool, task, { id, attempt }, { runAt: new Date(Date.now() + delay), jobKey: `${task}:${id}` });
}

export function pollPayload(payload: unknown): { id: string; attempt: number } {
  const p = payload as { id?: unknown; attempt?: unknown } | null;
  if (typeof p?.id !== 'string') throw new Error('poll job payload without id');
  return { id: p.id, attempt: typeof p.attempt === 'number' ? p.attempt : 0 };
}
