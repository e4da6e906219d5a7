import type { CallResult } from './client.js';

export class WorkloadError extends Error {
  override name = 'WorkloadError';
}

// Images and codes only make failure reports unreadable.
const trim = (k: string, v: unknown) => (k === 'imageBase64' || k === 'brCode' ? '…' : v);
export const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, trim));

/** A failed expectation of the workload, with what the API answered. */
export function check(cond: unknown, what: string, ...details: unknown[]): asserts cond {
  if (!cond) throw new WorkloadError([what, ...details.map(show)].join('\n  '));
}

export const code = (r: CallResult): string | undefined => (r.status >= 400 ? r.body?.error : undefined);

/** An answered rejection with one of the codes (an answer lost with the process is not an answer). */
export function checkRejected(r: CallResult, codes: string[], what: string, message?: string | RegExp): void {
  if (r.uncertain && r.status === 0) return;
  check(r.status >= 400 && r.status < 500 && codes.includes(code(r) ?? ''), `${what}: expected ${codes.join(' or ')}`, r.status, r.body);
  if (message !== undefined) {
    const ok = typeof message === 'string' ? r.body.message === message : message.test(r.body.message);
    check(ok, `${what}: message`, r.body.message, String(message));
  }
}
