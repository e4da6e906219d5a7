import { HOSTILE_STRINGS, HUGE, HUGE_EMOJI, NUMBER_TOKENS } from './hostile-values.js';
import { allowedTypes, fieldName, fieldsOf, getAt, members, setAt, type JsonSchema } from './openapi-ops.js';
import { randomJson, randomText } from './prng.js';

/** A value written into the JSON text as-is (`1e400`, `-0`, deep nesting): JSON.stringify cannot produce it. */
export class Raw {
  constructor(readonly token: string) {}
}

/** One hostile body: its exact text, and the field it targets (for the message check). */
export interface BodyVariant {
  kind: string;
  detail: string;
  text: string | Buffer;
  path?: (string | number)[];
  /** The targeted field's schema. */
  schema?: JsonSchema;
  /** A missing required field: the message must be exactly `<field>: is required`. */
  required?: boolean;
}

/** JSON text with Raw values spliced in. */
export function render(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v) => (v instanceof Raw ? `@@RAW${raws.push(v.token) - 1}@@` : v));
  return text.replace(/"@@RAW(\d+)@@"/g, (_m, i: string) => raws[Number(i)]!);
}

const preview = (v: unknown) => (v instanceof Raw ? v.token : JSON.stringify(v) ?? String(v)).slice(0, 60);
const nested = (depth: number) => new Raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/** Values a field must refuse or at least survive: other JSON types, bounds ±1, floats for cents, hostile text. */
export function fieldValues(s: JsonSchema, seed: number, randomCount: number): { kind: string; value: unknown }[] {
  const types = allowedTypes(s);
  const out: { kind: string; value: unknown }[] = [];
  const add = (kind: string, ...values: unknown[]) => values.forEach((value) => out.push({ kind, value }));
  if (!types.has('string')) add('wrong-type', 'x', '', '100', '1e2', '-0', 'true', 'null');
  if (!types.has('number') && !types.has('integer')) add('wrong-type', 0, 1, -1, 100, 10.5);
  if (!types.has('boolean')) add('wrong-type', true, false);
  if (!types.has('object')) add('wrong-type', {}, { $gt: '' }, { __proto__x: 1 }, nested(200));
  if (!types.has('array')) add('array-for-scalar', [], ['x'], [1], [null]);
  if (!types.has('null')) add('null', null);
  for (const m of members(s)) {
    if (m.type === 'integer' || m.type === 'number') {
      add('float-for-cents', ...NUMBER_TOKENS.map((t) => new Raw(t)), 10.5, 0.5);
      if (m.minimum !== undefined) add('bounds', m.minimum - 1, m.minimum, new Raw(`${m.minimum - 1}.0`), String(m.minimum));
      if (m.maximum !== undefined) add('bounds', m.maximum + 1, m.maximum, new Raw(`${m.maximum + 1}.0`), new Raw(`${m.maximum}.5`), String(m.maximum));
      add('number-as-string', '100', '1000', ' 100', '1e2', '0x64');
    }
    if (m.type === 'string') {
      if (m.minLength) add('bounds', 'a'.repeat(m.minLength - 1));
      if (m.maxLength !== undefined) add('bounds', 'a'.repeat(m.maxLength + 1), '😀'.repeat(m.maxLength + 1), 'é'.repeat(m.maxLength + 1));
      if (m.enum) add('enum', ...m.enum.map((e: string) => e.toLowerCase()), ...m.enum.map((e: string) => ` ${e}`), ...m.enum.map((e: string) => `${e}\u0000`));
      add('huge', HUGE, HUGE_EMOJI);
      add('hostile-text', ...HOSTILE_STRINGS);
      add('random-text', ...randomText(Math.ceil(randomCount / 2), seed));
    }
    if (m.type === 'array') {
      if (m.minItems) add('bounds', []);
      if (m.maxItems !== undefined) add('bounds', Array.from({ length: m.maxItems + 1 }, (_, i) => `item-${i}`));
      add('array-items', [null], [[]], [{}], new Raw('[[[[[[[[[[]]]]]]]]]]'));
    }
    if (m.type === 'object') add('array-for-object', [], [{}]);
  }
  add('random-json', ...randomJson(randomCount, seed ^ 0x5bd1e995));
  return out;
}

/**
 * Hostile bodies for one operation, from its schema and a valid base body: each field mutated alone,
 * then the body's structure (missing fields, wrong root types, duplicate keys, pollution keys, nesting).
 */
export function bodyVariants(schema: JsonSchema, base: unknown, seed: number, randomCount: number): BodyVariant[] {
  const out: BodyVariant[] = [];
  const fields = fieldsOf(schema, base);
  for (const [i, f] of fields.entries()) {
    for (const { kind, value } of fieldValues(f.schema, seed + i * 7919, randomCount)) {
      out.push({ kind: `body.${kind}`, detail: `${fieldName(f.path)}=${preview(value)}`, text: render(setAt(base, f.path, value)), path: f.path, schema: f.schema });
    }
    const parent = getAt(base, f.path.slice(0, -1));
    const key = f.path[f.path.length - 1];
    if (typeof key === 'string' && parent && typeof parent === 'object') {
      if (requiredAt(schema, f.path)) {
        out.push({ kind: 'body.missing-required', detail: fieldName(f.path), text: render(setAt(base, f.path, undefined, true)), path: f.path, required: true });
      }
      // Duplicate keys: JSON.parse keeps the last one, so a valid first value must not hide an invalid last one.
      const marked = render(setAt(base, f.path, '@@DUP@@'));
      for (const bad of ['"x"', 'null', '10.5', '[]', '{"a":1}', '1e400']) {
        const valid = render(getAt(base, f.path) ?? 'x');
        out.push({ kind: 'body.duplicate-key', detail: `${fieldName(f.path)} twice, last ${bad}`, path: f.path,
          text: marked.replace(`"${key}":"@@DUP@@"`, `"${key}":${valid},"${key}":${bad}`) });
      }
    }
  }
  const firstRequired = (schema.required as string[] | undefined)?.[0];
  const withoutRequired = firstRequired ? setAt(base, [firstRequired], undefined, true) : base;
  const rest = render(withoutRequired).slice(1, -1);
  const sep = rest ? ',' : '';
  const structural: [string, string][] = [
    ['root-type', '[]'], ['root-type', render([base])], ['root-type', '"body"'], ['root-type', '123'], ['root-type', 'true'],
    ['root-type', 'null'], ['root-type', '1e400'], ['deep-nesting', '['.repeat(5000) + ']'.repeat(5000)],
    ['deep-nesting', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)],
    ['prototype-pollution', `{"__proto__":${render(base)}}`],
    ['prototype-pollution', `{"constructor":{"prototype":${render(base)}}${sep}${rest}}`],
    ['prototype-pollution', `{"__proto__":{"isAdmin":true}${sep}${rest}}`],
    ['unknown-fields', `{"unknown":1,"${'k'.repeat(1000)}":"v","":null,"\\u0000":1${sep}${rest}}`],
    ['deep-unknown-field', `{"extra":${'['.repeat(10_000)}${']'.repeat(10_000)}${sep}${rest}}`],
    ['invalid-utf8', ''],
  ];
  for (const [kind, text] of structural) {
    if (kind === 'invalid-utf8') {
      out.push({ kind: 'body.invalid-utf8', detail: 'bytes ff fe c0', text: Buffer.concat([Buffer.from(`{${rest}${sep}"x":"`), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}')]) });
    } else out.push({ kind: `body.${kind}`, detail: text.slice(0, 60), text });
  }
  return out;
}

function requiredAt(schema: JsonSchema, path: (string | number)[]): boolean {
  let s: JsonSchema | undefined = schema;
  for (const [i, p] of path.entries()) {
    const obj: JsonSchema | undefined = s && members(s).find((m) => (typeof p === 'number' ? m.type === 'array' : m.type === 'object'));
    if (!obj) return false;
    if (i === path.length - 1) return typeof p === 'string' && (obj.required ?? []).includes(p);
    s = typeof p === 'number' ? obj.items : obj.properties?.[p];
  }
  return false;
}
