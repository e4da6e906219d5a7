/** The operations of the API as its own OpenAPI document describes them. */
export type JsonSchema = Record<string, any>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/customers/{id}`. */
  path: string;
  name: string;
  /** `session`: a dashboard session only (an API key gets 403), docs/contract/access.md#api-keys. */
  auth: 'merchant' | 'admin' | 'none' | 'session';
  params: Param[];
  body?: JsonSchema;
  /** Whether the success answer is a list (carries `pagination`). */
  list: boolean;
  /** The media type of a success answer that is a file, not the JSON envelope (the statement's CSV and OFX exports). */
  file?: string;
  /** A public page: the errors its handler raises are HTML pages, not the envelope (the fuzz sets it, by contract). */
  pageErrors?: boolean;
  /** A page's form: a request it does not refuse is answered with a 303 to a page. */
  redirects?: boolean;
}

export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(byMethod)) {
      const security: any[] = op.security ?? doc.security ?? [];
      const auth = security.length === 0 ? 'none' : 'adminToken' in security[0] ? 'admin'
        : 'session' in security[0] || 'sessionCookie' in security[0] ? 'session' : 'merchant';
      const success = op.responses?.['200'] ?? op.responses?.['201'];
      const successSchema = success?.content?.['application/json']?.schema;
      const file = success?.content && !success.content['application/json'] ? Object.keys(success.content)[0] : undefined;
      ops.push({
        method: method.toUpperCase(),
        path,
        name: `${method.toUpperCase()} ${path}`,
        auth,
        // Headers (Idempotency-Key) have cases of their own in generate.ts.
        params: (op.parameters ?? []).filter((p: any) => p.in !== 'header').map((p: any) => ({ name: p.name, in: p.in, required: !!p.required, schema: p.schema ?? {} })),
        body: op.requestBody?.content?.['application/json']?.schema,
        list: !!successSchema?.properties?.pagination,
        ...(file ? { file } : {}),
      });
    }
  }
  return ops;
}

export const allowedTypes = (s: JsonSchema): Set<string> => {
  if (Array.isArray(s.anyOf)) return new Set(s.anyOf.flatMap((m: JsonSchema) => [...allowedTypes(m)]));
  if (Array.isArray(s.type)) return new Set(s.type);
  return s.type ? new Set([s.type]) : new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
};

/** The non-null members of a schema (an `anyOf` with null is a nullable field). */
export const members = (s: JsonSchema): JsonSchema[] =>
  Array.isArray(s.anyOf) ? s.anyOf.filter((m: JsonSchema) => m.type !== 'null') : [s];

/** Every field of a body schema, as a path into `base` (objects and the first item of arrays are descended into). */
export function fieldsOf(schema: JsonSchema, base: unknown, path: (string | number)[] = []): { path: (string | number)[]; schema: JsonSchema }[] {
  const out: { path: (string | number)[]; schema: JsonSchema }[] = [];
  for (const m of members(schema)) {
    if (m.type === 'object' && m.properties) {
      for (const [k, sub] of Object.entries<JsonSchema>(m.properties)) {
        const p = [...path, k];
        out.push({ path: p, schema: sub });
        out.push(...fieldsOf(sub, getAt(base, p), p).filter((f) => f.path.length > p.length));
      }
    } else if (m.type === 'array' && m.items && Array.isArray(base) && base.length > 0) {
      const p = [...path, 0];
      out.push({ path: p, schema: m.items });
      out.push(...fieldsOf(m.items, base[0], p).filter((f) => f.path.length > p.length));
    }
  }
  return out;
}

export function getAt(value: unknown, path: readonly (string | number)[]): unknown {
  let v: any = value;
  for (const p of path) v = v == null ? undefined : v[p];
  return v;
}

/** A deep copy of `value` with the field at `path` set (parents created) or, with `remove`, deleted. */
export function setAt(value: unknown, path: readonly (string | number)[], next: unknown, remove = false): unknown {
  const copy: any = structuredClone(value ?? {});
  let v = copy;
  for (const [i, p] of path.entries()) {
    if (i === path.length - 1) {
      if (remove) delete v[p];
      else v[p] = next;
    } else {
      if (v[p] == null || typeof v[p] !== 'object') v[p] = typeof path[i + 1] === 'number' ? [] : {};
      v = v[p];
    }
  }
  return copy;
}

/** `split[0].value`, as the API names fields in its messages. */
export const fieldName = (path: readonly (string | number)[]): string =>
  path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
