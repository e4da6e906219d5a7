import { enqueue, type Task } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';
import { acceptReceivedPix } from '../../unmatched/received-pix.service.js';
import { selectKnownEndToEndIds } from '../../unmatched/unmatched.sql.js';
import type { ApiPixClient } from './api-pix.client.js';
import { toReceivedPix, type PspPix } from './api-pix-confirm.client.js';
import { advanceCoveredUntil, selectCoveredUntil } from './api-pix-reconcile.sql.js';
import { sweepRecurrences } from './api-pix-recurrence.service.js';

export const RECONCILE_TASK = 'api-pix:reconcile';
const PROVIDER = 'api-pix';
/** Each window starts this long before the last one ended: a PIX the PSP lists a little late is still seen. */
export const OVERLAP_MS = 60_000;
/** However long the sweep was stopped, it looks back at most this far. */
export const MAX_LOOKBACK_MS = 7 * 24 * 3600_000;
/** A database's first sweep looks back this far. */
export const FIRST_LOOKBACK_MS = 24 * 3600_000;
/** A catch-up is listed in windows of this size, each recorded when done, so a restart loses at most one. */
const WINDOW_MS = 3600_000;
const PAGE_SIZE = 100;
/** A PSP that reports endless pages is not believed past this. */
const MAX_PAGES = 10_000;

/** API Pix `PixConsultados` (the fields read). */
interface PixConsultados {
  parametros?: { paginacao?: { quantidadeDePaginas?: unknown } };
  pix?: PspPix[];
}

/** Every page of `GET /pix?inicio&fim`. */
async function listReceived(api: ApiPixClient, from: Date, to: Date): Promise<PspPix[]> {
  const all: PspPix[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({
      inicio: from.toISOString(), fim: to.toISOString(),
      'paginacao.paginaAtual': String(page), 'paginacao.itensPorPagina': String(PAGE_SIZE),
    });
    const answer = await api.request<PixConsultados>('GET', `/pix?${query}`, 'GET /pix');
    all.push(...(answer.pix ?? []));
    const pages = answer.parametros?.paginacao?.quantidadeDePaginas;
    if (typeof pages === 'number' ? page + 1 >= pages : (answer.pix ?? []).length < PAGE_SIZE) break;
  }
  return all;
}

export interface SweepReport { windows: number; listed: number; recorded: number; malformed: number }

/**
 * Lists what the PSP received since the last completed window (less OVERLAP_MS, at most
 * MAX_LOOKBACK_MS back; FIRST_LOOKBACK_MS on a first run) up to now, and passes every PIX not yet known
 * through the same path as a confirmed notification (acceptReceivedPix, once per endToEndId). Safe to
 * run twice or in several processes at once: recording is idempotent and the progress only advances.
 */
export async function reconcileReceived(rt: Runtime, api: ApiPixClient, now = new Date()): Promise<SweepReport> {
  const report: SweepReport = { windows: 0, listed: 0, recorded: 0, malformed: 0 };
  const covered = await selectCoveredUntil(rt.pool, PROVIDER);
  const floor = now.getTime() - MAX_LOOKBACK_MS;
  let from = covered ? Math.max(covered.getTime() - OVERLAP_MS, floor) : now.getTime() - FIRST_LOOKBACK_MS;
  for (;;) {
    const to = Math.min(from + WINDOW_MS, now.getTime());
    const listed = await listReceived(api, new Date(from), new Date(to));
    const pix = listed.map((p) => toReceivedPix(p));
    report.malformed += pix.filter((p) => p === null).length;
    const valid = pix.filter((p) => p !== null);
    const known = await selectKnownEndToEndIds(rt.pool, valid.map((p) => p.endToEndId));
    for (const p of valid) {
      if (known.has(p.endToEndId)) continue;
      known.add(p.endToEndId); // a PSP listing the same PIX twice
      await acceptReceivedPix(rt, p);
      report.recorded++;
    }
    report.listed += listed.length;
    report.windows++;
    await advanceCoveredUntil(rt.pool, PROVIDER, new Date(to));
    if (to >= now.getTime()) return report;
    from = to - OVERLAP_MS;
  }
}

/** At worker start: due now the first time; a later start keeps the pending run instead of sweeping again. */
export const scheduleReconcile = (rt: Runtime) => enqueue(rt.pool, RECONCILE_TASK, {}, { jobKey: RECONCILE_TASK, jobKeyMode: 'preserve_run_at' });

export function reconcileTask(rt: Runtime, api: ApiPixClient): Task {
  return async () => {
    // Rescheduled first, so a failing sweep never ends the cycle.
    await enqueue(rt.pool, RECONCILE_TASK, {}, {
      jobKey: RECONCILE_TASK, runAt: new Date(Date.now() + rt.config.apiPix!.reconcileIntervalS * 1000),
    });
    await reconcileReceived(rt, api);
    await sweepRecurrences(rt, api);
  };
}
