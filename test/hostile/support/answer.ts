import { ERROR_STATUS } from '../../../src/platform/errors.js';
import type { Case } from './generate.js';

export interface Answer {
  status: number;
  raw: string;
  contentType?: string;
}

// Internals that must never reach a client: stack frames, source paths, SQL and driver wording.
const LEAK = /\bat \S+ \(|\.(ts|js):\d+|node_modules|\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|syntax error|relation "|violates|duplicate key|invalid byte sequence|TypeError|RangeError|ReferenceError|Cannot read prop|Maximum call stack|FST_ERR|ajv/i;

const sorted = (o: object) => Object.keys(o).sort().join(',');

/** Everything wrong with one answer (empty when it is right). `list`: the success answer carries `pagination`. */
export function problemsOf(c: Case, a: Answer, list: boolean): string[] {
  const problems: string[] = [];
  if (a.status >= 500) problems.push(`status ${a.status}`);
  // A page's form (POST /l/{id}, the simulate button) answers a request it may take with a 303 to a page, whatever a
  // free query value (`lang`) says; the batch's snapshot still proves it wrote nothing.
  if (c.redirects && a.status === 303 && !c.expect.error) return problems;
  // The public pages answer their errors as pages too (docs/contract/checkouts.md#payment-page: "a 404 page"; the link
  // page shows its field errors, docs/contract/checkouts.md#link-page). What fails before the handler (the JSON parser,
  // the schema, the router) is still the envelope, checked below.
  if (c.pageErrors && a.status >= 400 && a.contentType?.startsWith('text/html')) {
    if (!/^<!doctype html>/i.test(a.raw)) problems.push(`error page is not an HTML document: ${a.raw.slice(0, 120)}`);
    if (c.expect.statuses.length && !c.expect.statuses.includes(a.status)) problems.push(`status ${a.status}, expected ${c.expect.statuses.join('|')}`);
    return problems;
  }
  // A file route (the statement's CSV / OFX export) answers its file on success; its errors are envelopes like any other.
  if (c.file && a.status < 400) {
    if (!a.contentType?.startsWith(c.file)) problems.push(`content-type ${a.contentType}, want ${c.file}`);
    if (a.raw === '') problems.push('empty file');
    if (c.method !== 'GET' && !c.mayWrite) problems.push(`a request meant to be invalid was accepted (${a.status})`);
    if (c.expect.statuses.length && !c.expect.statuses.includes(a.status)) problems.push(`status ${a.status}, expected ${c.expect.statuses.join('|')}: ${a.raw.slice(0, 160)}`);
    return problems;
  }
  if (a.contentType !== undefined && !a.contentType.startsWith('application/json')) problems.push(`content-type ${a.contentType}`);
  let body: any;
  try {
    body = JSON.parse(a.raw);
  } catch {
    return [...problems, `body is not JSON: ${a.raw.slice(0, 120)}`];
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [...problems, `body is not an object: ${a.raw.slice(0, 120)}`];
  if (a.status < 400) {
    if (c.method !== 'GET' && !c.mayWrite) problems.push(`a request meant to be invalid was accepted (${a.status})`);
    if (c.url.startsWith('/health')) {
      if (sorted(body) !== 'status') problems.push(`health keys ${sorted(body)}`);
    } else {
      const want = list ? 'data,error,pagination,success' : 'data,error,success';
      if (sorted(body) !== want) problems.push(`success keys ${sorted(body)}, want ${want}`);
      if (body.error !== null || body.success !== true) problems.push('success envelope without error: null, success: true');
      if (list && (!Array.isArray(body.data) || typeof body.pagination?.hasMore !== 'boolean')) problems.push('list without data[] and pagination');
    }
  } else {
    if (sorted(body) !== 'error,message,success') problems.push(`error keys ${sorted(body)}: ${a.raw.slice(0, 160)}`);
    if (body.success !== false) problems.push('error envelope without success: false');
    if (!(body.error in ERROR_STATUS)) problems.push(`error code ${String(body.error)} outside the closed set`);
    else if (ERROR_STATUS[body.error as keyof typeof ERROR_STATUS] !== a.status) problems.push(`${body.error} answered with ${a.status}`);
    if (typeof body.message !== 'string' || body.message === '') problems.push('message missing');
    else {
      if (LEAK.test(body.message)) problems.push(`message leaks internals: ${body.message.slice(0, 160)}`);
      // A key of a free-form map (checkout metadata) may hold a colon itself: then the field is the targeted one's child.
      const child = c.expect.field !== undefined && body.message.startsWith(`${c.expect.field}.`) && body.message.includes(': ');
      if (body.error === 'VALIDATION_ERROR' && !/^[^:]+: .+/s.test(body.message) && !child) problems.push(`validation message not "<field>: <reason>": ${body.message}`);
    }
  }
  const e = c.expect;
  // One export at a time per merchant (docs/contract/statement.md#exports), and the batch sends its cases side by side:
  // an export that could be served may meet another of the same merchant's and be refused, an envelope checked above.
  const busyExport = /^GET \/me\/statement\.(csv|ofx)$/.test(c.op) && a.status === 429 && body.error === 'RATE_LIMITED' && e.statuses.includes(200);
  if (e.statuses.length && !e.statuses.includes(a.status) && !busyExport) problems.push(`status ${a.status}, expected ${e.statuses.join('|')}: ${a.raw.slice(0, 160)}`);
  if (e.error && a.status >= 400 && body.error !== e.error) problems.push(`error ${String(body.error)}, expected ${e.error}: ${String(body.message).slice(0, 120)}`);
  if (e.message !== undefined && typeof body.message === 'string') {
    const okMessage = typeof e.message === 'string' ? body.message === e.message : e.message.test(body.message);
    if (!okMessage) problems.push(`message "${body.message.slice(0, 120)}", expected ${String(e.message)}`);
  }
  if (e.field && typeof body.message === 'string' && body.error === 'VALIDATION_ERROR') {
    const named = body.message.split(': ')[0]!;
    const related = (outer: string, inner: string) => inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
    if (!related(named, e.field) && !related(e.field, named)) {
      problems.push(`message names "${named}", expected ${e.field} (or a parent or child)`);
    }
  }
  return problems;
}
