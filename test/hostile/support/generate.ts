import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import sjson from 'secure-json-parse';
import { bodyVariants, type BodyVariant } from './body-variants.js';
import {
  BAD_IDEMPOTENCY_KEYS, badAuthorizations, HOSTILE_STRINGS, HUGE, MALFORMED_JSON, OVER_BODY_LIMIT, WRONG_CONTENT_TYPES,
} from './hostile-values.js';
import { fieldName, getAt, members, type JsonSchema, type Operation, type Param } from './openapi-ops.js';
import { Prng, randomText } from './prng.js';
import { fillPath, pct, queryString, RAW_ENCODINGS } from './urls.js';

export interface Expect {
  statuses: number[];
  error?: string;
  message?: string | RegExp;
  /** The message must name this field, one of its parents or (for an object or array value) a field inside it. */
  field?: string;
}

export interface Case {
  op: string;
  kind: string;
  detail: string;
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
  expect: Expect;
  /** Valid by the schema: may be accepted (and write); run outside the nothing-written batch. */
  mayWrite?: boolean;
  /** The body field the case targets. */
  path?: (string | number)[];
  /** The body as the server parses it. */
  body?: unknown;
  /** A success answer is this file type, not the envelope (errors are still envelopes, unless `pageErrors`). */
  file?: string;
  pageErrors?: boolean;
  redirects?: boolean;
}

export interface FuzzContext {
  key: string;
  adminToken: string;
  /** A dashboard session token (OWNER of the merchant of `key`) for session-only routes. */
  session: string;
  /** A valid body per operation (`POST /customers` → {...}); mutations start from it. */
  bases: Record<string, unknown>;
  /** Real path and query values per operation (raw-encoded), used where every variant is invalid anyway. */
  realParams: Record<string, Record<string, string>>;
  /** Ids of real objects of every kind: on a route for another kind they are simply unknown. */
  ids: string[];
  /** Cursors issued by other lists (or merchants): never valid where they are sent. */
  cursors: string[];
}

const ajv = addFormats.default(new Ajv({ strict: false, allErrors: false }), ['email', 'uri', 'date-time']);
const INVALID_JSON = { statuses: [400], error: 'VALIDATION_ERROR', message: 'body: invalid JSON' };
/** Bodies nest at most this deep (decided after the fuzzer overflowed the idempotency hash with a deeper one). */
const MAX_DEPTH = 32;
const TOO_DEEP = { statuses: [400], error: 'VALIDATION_ERROR', message: `body: nested deeper than ${MAX_DEPTH} levels` };
const VALIDATION = { statuses: [400], error: 'VALIDATION_ERROR' };
const BAD_TEXT = /[\u0000\p{Cs}]/u;
const OWN_PREFIX: Record<string, string> = {
  checkouts: 'chk_', pay: 'chk_', subscriptions: 'sub_', 'payment-links': 'plk_', l: 'plk_', logos: 'logo_', customers: 'cust_', withdrawals: 'wd_', webhooks: 'whk_', merchants: 'mer_', 'api-keys': 'key_', charges: 'chg_', disputes: 'dsp_', refunds: 'ref_', 'unmatched-payments': 'unp_', users: 'usr_', events: 'evt_',
};

/** The id prefix of the objects a route is about: the segment before `{id}`, or charges for `/transparents/*?id=`. */
function ownPrefix(path: string): string | undefined {
  const segments = path.split('/');
  const at = segments.indexOf('{id}');
  return at > 0 ? OWN_PREFIX[segments[at - 1]!] : path.startsWith('/transparents/') ? OWN_PREFIX.charges : undefined;
}

/** Nesting depth of a parsed JSON value (iterative: the values under test are deep on purpose). */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v && typeof v === 'object') {
      max = Math.max(max, d + 1);
      for (const child of Object.values(v)) stack.push([child, d + 1]);
    }
  }
  return max;
}

/** The body as the server sees it (same parser and options), `malformed`, or refused as nested too deeply. */
export function effectiveBody(text: string | Buffer): { ok: true; value: unknown } | { ok: false; deep?: boolean } {
  const s = (typeof text === 'string' ? text : text.toString('utf8')).trim();
  if (s === '') return { ok: true, value: null };
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch {
    return { ok: false };
  }
  if (depthOf(value) > MAX_DEPTH) return { ok: false, deep: true };
  return { ok: true, value: sjson.parse(s, undefined, { protoAction: 'remove', constructorAction: 'remove' }) };
}

export const schemaAccepts = (schema: JsonSchema, value: unknown) => ajv.validate(schema, value) as boolean;

/** Every hostile request for every operation: `batch` must all be refused; `accepted` are valid by the schema. */
export function generateCases(ops: Operation[], ctx: FuzzContext, seed: number, randomCount: number) {
  const rnd = new Prng(seed);
  const batch: Case[] = [];
  const accepted: Case[] = [];
  for (const [opIndex, op] of ops.entries()) {
    const opSeed = seed + opIndex * 104729;
    const real = ctx.realParams[op.name] ?? {};
    const auth = op.auth === 'admin' ? `Bearer ${ctx.adminToken}` : op.auth === 'merchant' ? `Bearer ${ctx.key}` : op.auth === 'session' ? `Bearer ${ctx.session}` : undefined;
    // Merchant-scope POSTs take an Idempotency-Key; /auth/* is outside that scope.
    const idempotent = (op.auth === 'merchant' || op.auth === 'session') && op.method === 'POST' && !op.path.startsWith('/auth/');
    const headers = (extra: Record<string, string | string[]> = {}) => ({ ...(auth ? { authorization: auth } : {}), ...extra });
    const url = (over: Record<string, string> = {}, extraQuery: [string, string][] = []) => {
      const all = { ...real, ...over };
      const query = op.params.filter((p) => p.in === 'query' && all[p.name] !== undefined).map((p): [string, string] => [p.name, all[p.name]!]);
      return fillPath(op.path, all) + queryString([...query, ...extraQuery]);
    };
    const json = { 'content-type': 'application/json' };
    const base = ctx.bases[op.name];
    const baseText = base === undefined ? '{}' : JSON.stringify(base);
    const file = { ...(op.file ? { file: op.file } : {}), ...(op.pageErrors ? { pageErrors: true } : {}), ...(op.redirects ? { redirects: true } : {}) };
    const add = (c: Omit<Case, 'op' | 'method'>) => batch.push({ op: op.name, method: op.method, ...file, ...c });

    if (op.body) {
      if (base === undefined) throw new Error(`no base body for ${op.name}`);
      if (!schemaAccepts(op.body, base)) throw new Error(`base body of ${op.name} is invalid: ${JSON.stringify(ajv.errors)}`);
      // Half of a merchant POST's variants carry a fresh Idempotency-Key: a refused request must store no answer.
      const keyed = idempotent;
      for (const [i, v] of bodyVariants(op.body, base, opSeed, randomCount).entries()) {
        const key: Record<string, string> = keyed && rnd.int(2) === 0 ? { 'idempotency-key': `fuzz-${opIndex}-${i}` } : {};
        const c = bodyCase(v, op.body, url(), headers({ ...json, ...key }));
        // A body of a route that answers a page (the dashboard's previews) keeps that route's answer kind.
        (c.valid ? accepted : batch).push({ op: op.name, method: op.method, ...file, ...c.case });
      }
      for (const type of WRONG_CONTENT_TYPES) add({ kind: 'header.content-type', detail: type, url: url(), headers: headers({ 'content-type': type }), payload: baseText, expect: VALIDATION });
      add({ kind: 'header.content-type', detail: 'none', url: url(), headers: headers(), payload: baseText, expect: VALIDATION });
    }
    if (op.method !== 'GET') {
      for (const text of MALFORMED_JSON) {
        if (effectiveBody(text).ok) throw new Error(`malformed JSON sample parses: ${text}`);
        add({ kind: 'body.malformed-json', detail: text.slice(0, 40), url: url(), headers: headers(json), payload: text, expect: INVALID_JSON });
      }
      const big = `{"description":"${'A'.repeat(OVER_BODY_LIMIT)}"}`;
      add({ kind: 'body.over-limit', detail: `${big.length} bytes`, url: url(), headers: headers(json), payload: big, expect: { statuses: [413], error: 'PAYLOAD_TOO_LARGE' } });
    }
    if (auth) {
      const other = op.auth === 'admin' ? `Bearer ${ctx.key}` : `Bearer ${ctx.adminToken}`;
      const withBody = op.body ? { payload: baseText } : {};
      for (const value of [...badAuthorizations(ctx.key, ctx.adminToken), other]) {
        const h: Record<string, string> = op.body ? { ...json } : {};
        if (value !== '') h.authorization = value;
        add({ kind: 'header.authorization', detail: value.slice(0, 40), url: url(), headers: h, ...withBody, expect: { statuses: [401], error: 'UNAUTHORIZED' } });
      }
    }
    if (idempotent) {
      const idem = { statuses: [400], error: 'VALIDATION_ERROR', message: 'Idempotency-Key: must be 1 to 255 printable ASCII characters' };
      for (const k of BAD_IDEMPOTENCY_KEYS) {
        add({ kind: 'header.idempotency-key', detail: JSON.stringify(k).slice(0, 40), url: url(), headers: headers({ ...json, 'idempotency-key': k }), payload: op.body ? baseText : undefined, expect: idem });
      }
    }
    for (const p of op.params) {
      for (const c of paramCases(op, p, ctx, opSeed + p.name.length, randomCount, rnd)) {
        add({ ...c, url: p.in === 'path' ? url({ [p.name]: c.value }) : url({ [p.name]: c.value }, c.extra), headers: headers(op.body ? json : {}), payload: op.body ? baseText : undefined });
      }
      if (p.in === 'query' && p.required) {
        const without = { ...real };
        delete without[p.name];
        add({ kind: 'query.missing-required', detail: p.name, url: fillPath(op.path, without), headers: headers(), expect: { ...VALIDATION, message: `${p.name}: is required` } });
      }
    }
    if (op.params.some((p) => p.name === 'after')) {
      add({ kind: 'query.after-and-before', detail: '', url: url({}, [['after', pct(ctx.cursors[0]!)], ['before', pct(ctx.cursors[0]!)]]), headers: headers(), expect: VALIDATION });
    }
    if (op.method === 'GET') {
      const misc: Record<string, string>[] = [
        { accept: 'text/html' }, { accept: 'application/xml;q=1, */*;q=0' }, { 'content-type': 'application/json' }, { 'content-type': 'text/plain' },
        { 'x-http-method-override': 'DELETE' }, { 'x-forwarded-for': '<script>, 999.1.1.1' }, { 'x-unknown': HUGE }, { 'accept-version': '9.9.9' },
        { 'x-request-id': "' OR 1=1 --" }, { 'accept-encoding': 'gzip;q=2, br, zstd, *' },
      ];
      for (const h of misc) add({ kind: 'header.misc', detail: Object.entries(h)[0]!.join(': ').slice(0, 40), url: url(), headers: headers(h), expect: { statuses: [200, 404] } });
      const extras: [string, string][][] = [
        [['__proto__', 'x']], [['constructor', 'x'], ['__proto__[polluted]', '1']], [['a[b]', 'c']], [['unknown', pct(HUGE)]],
        Array.from({ length: 2000 }, (_, i): [string, string] => [`p${i}`, String(i)]),
      ];
      for (const e of extras) {
        add({ kind: 'query.extra', detail: e[0]!.join('=').slice(0, 40), url: url({}, e), headers: headers(), expect: { statuses: op.method === 'GET' ? [200, 400, 404] : [400, 404] } });
      }
    }
  }
  for (const path of new Set(ops.map((o) => o.path))) {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      if (ops.some((o) => o.path === path && o.method === method)) continue;
      batch.push({ op: ops.find((o) => o.path === path)!.name, method, kind: 'method.unknown', detail: method, url: fillPath(path, {}),
        headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' }, payload: method === 'GET' ? undefined : '{',
        expect: { statuses: [404], error: 'NOT_FOUND', message: 'Route not found' } });
    }
  }
  return { batch, accepted };
}

function bodyCase(v: BodyVariant, schema: JsonSchema, url: string, headers: Record<string, string | string[]>): { valid: boolean; case: Omit<Case, 'op' | 'method'> } {
  const parsed = effectiveBody(v.text);
  const c = { kind: v.kind, detail: v.detail, url, headers, payload: v.text };
  if (!parsed.ok) return { valid: false, case: { ...c, expect: parsed.deep ? TOO_DEEP : INVALID_JSON } };
  if (schemaAccepts(schema, parsed.value)) {
    // Declared text fields refuse NUL and unpaired surrogates (PostgreSQL cannot store them as given).
    const value = v.path ? getAt(parsed.value, v.path) : undefined;
    const badText = typeof value === 'string' && v.schema && members(v.schema).some((m) => m.type === 'string') && BAD_TEXT.test(value);
    const expect = badText ? { ...VALIDATION, message: `${fieldName(v.path!)}: must not contain NUL characters or unpaired surrogates` } : { statuses: [] };
    return { valid: true, case: { ...c, expect, mayWrite: true, path: v.path, body: parsed.value } };
  }
  const field = v.path ? fieldName(v.path) : undefined;
  const message = v.required && field ? `${field}: is required` : undefined;
  return { valid: false, case: { ...c, expect: { ...VALIDATION, field, message } } };
}

/** Hostile values for one path or query parameter; `value` is raw-encoded text. */
function paramCases(op: Operation, p: Param, ctx: FuzzContext, seed: number, randomCount: number, rnd: Prng) {
  const out: { kind: string; detail: string; value: string; extra?: [string, string][]; expect: Expect }[] = [];
  const s = p.schema;
  const loose: Expect = { statuses: op.method === 'GET' && p.in === 'query' ? [200, 400, 404] : [400, 404] };
  const unknownId: Expect = { statuses: [404], error: 'NOT_FOUND' };
  const add = (kind: string, values: string[], expect: Expect, encode = true) =>
    values.forEach((v) => out.push({ kind: `${p.in}.${kind}`, detail: `${p.name}=${JSON.stringify(v).slice(0, 50)}`, value: encode ? pct(v) : v, expect }));
  // A client resolves `.` and `..` segments before it sends (WHATWG URL, as inject does): `/customers/..` is a request
  // for `GET /` (a redirect to the dashboard) and `/pay/./status` one for the page of a checkout "status", never this
  // route with id "." or "..". `../../etc/passwd` and the rest stay.
  const dotDot = (v: string) => p.in === 'path' && /^(\.|%2e){1,2}$/i.test(v);
  const strings = HOSTILE_STRINGS.filter((v) => (p.in === 'query' || v !== '') && !dotDot(v));
  add('hostile-text', strings, loose);
  add('random-text', randomText(randomCount, seed).filter((v) => p.in === 'query' || v !== ''), loose);
  add('raw-encoding', RAW_ENCODINGS.filter((v) => !dotDot(v)), loose, false);
  // Past the router's parameter length limit (100) too.
  add('huge', p.in === 'path' ? [HUGE, 'a'.repeat(101), 'a'.repeat(5000)] : [HUGE], { statuses: [400, 404] });
  if (s.maxLength !== undefined) add('bounds', ['a'.repeat(s.maxLength + 1), '😀'.repeat(s.maxLength + 1)], VALIDATION);
  if (s.minLength) add('bounds', ['a'.repeat(s.minLength - 1)], p.in === 'query' ? VALIDATION : { statuses: [400, 404] });
  if (s.type === 'integer') {
    add('bounds', [String(s.minimum - 1), String(s.maximum + 1), '-1', '1.5', 'abc', '', '1e400', 'NaN', 'Infinity', '[]', '{}'], VALIDATION);
    add('number-text', ['1e1', ' 5', '5 ', '+5', '-0', '05', '5.0', '0x10'], loose);
  }
  // A lower-case enum (the statement's `account`) is its own lower-case form: that one is valid, not a variant.
  if (s.enum) add('enum', s.enum.flatMap((e: string) => [e.toLowerCase(), `${e} `, `${e}\u0000`].filter((v) => v !== e)), VALIDATION);
  if (p.name === 'after' || p.name === 'before') {
    add('cursor', [...ctx.cursors, 'a.b', 'a.b.c', `${'A'.repeat(40)}.${'B'.repeat(22)}`, 'e30.AAAAAAAAAAAAAAAAAAAAAA'], { ...VALIDATION, message: `${p.name}: invalid cursor` });
  }
  if (p.name === 'id') {
    const own = ownPrefix(op.path);
    const foreign = ctx.ids.filter((id) => !own || !id.startsWith(own));
    const ownUnknown = own ? [`${own}${'0'.repeat(22)}`, `${own}${'Z'.repeat(22)}`] : [];
    // `?id=` names the charge on the /transparents/* operations on one charge (check, refund, simulate-payment);
    // on the list it is a filter, and an unknown one is an empty page.
    const expect = p.in === 'path' || (op.path.startsWith('/transparents/') && !op.list) ? unknownId : { statuses: [200] };
    add('unknown-id', [...foreign, ...ownUnknown, 'a'.repeat(Math.min(64, s.maxLength ?? 64))], expect);
  }
  // The same parameter twice reaches the handler as an array.
  if (p.in === 'query') {
    out.push({ kind: 'query.repeated', detail: p.name, value: 'x', extra: [[p.name, pct(rnd.pick(HOSTILE_STRINGS))]], expect: VALIDATION });
  }
  return out;
}
