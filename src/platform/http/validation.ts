import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError } from '../errors.js';

// Bodies are never coerced ("1000" and 10.5 are not cents, docs/contract/http.md#numbers); query strings, params
// and headers arrive as text, so there numbers and booleans are read from their text form.
// PostgreSQL text cannot hold NUL (the query fails) and UTF-8 cannot hold an unpaired surrogate (it would be
// stored as U+FFFD, not as given): every declared string field refuses both, as that field's validation error.
const TEXT_KEYWORD = 'pixgateText';
const BAD_TEXT = /[\u0000\p{Cs}]/u;

const makeAjv = (coerceTypes: boolean) => {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  ajv.addKeyword({ keyword: TEXT_KEYWORD, type: 'string', schemaType: 'boolean', errors: false, validate: (_: boolean, data: string) => !BAD_TEXT.test(data) });
  return addFormats.default(ajv, ['email', 'uri', 'date-time']);
};

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

/** A copy of the schema with the text rule on every string (cached, so each schema keeps one identity). */
const withText = new WeakMap<object, object>();
function withTextRule(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withTextRule);
  if (!schema || typeof schema !== 'object') return schema;
  const cached = withText.get(schema);
  if (cached) return cached;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : withTextRule(v);
  if (out.type === 'string') out[TEXT_KEYWORD] = true;
  withText.set(schema, out);
  return out;
}

// A number in a query string is read only in its plain decimal form: the coercion's Number() would also
// take "0x10", "0b11", "1e1" or " 1" (docs/contract/http.md#numbers: query parameters are validated like body fields).
const DECIMAL = /^-?\d+(\.\d+)?$/;

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function numericFields(schema: unknown): Array<[string, string]> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties).flatMap(([name, s]) => (s.type === 'integer' || s.type === 'number' ? [[name, s.type]] : []));
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return strictAjv.compile(withTextRule(schema) as object);
  const validate = coercingAjv.compile(withTextRule(schema) as object);
  const numeric = numericFields(schema);
  if (numeric.length === 0) return validate;
  const check: Validate = (data) => {
    for (const [name, type] of numeric) {
      const value = (data as Record<string, unknown> | null)?.[name];
      if (typeof value === 'string' && !DECIMAL.test(value)) {
        check.errors = [{ keyword: 'type', instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, params: { type } }];
        return false;
      }
    }
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  };
  return check;
};

/** `/split/0/merchantId` → `split[0].merchantId` */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function reason(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': return 'is required';
    case 'type': return `must be ${p.type === 'integer' ? 'an integer' : p.type === 'object' ? 'an object' : p.type === 'array' ? 'an array' : `a ${String(p.type)}`}`;
    case 'minimum': return `must be >= ${p.limit}`;
    case 'maximum': return `must be <= ${p.limit}`;
    case 'minLength': return `must have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`;
    case 'maxLength': return `must have at most ${p.limit} characters`;
    case 'minItems': return `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems': return `must have at most ${p.limit} items`;
    case 'uniqueItems': return 'must not contain duplicates';
    case 'enum': return `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const': return `must be ${String(p.allowedValue)}`;
    case 'format': return p.format === 'email' ? 'must be a valid e-mail' : `must be a valid ${String(p.format)}`;
    case 'pattern': return 'has an invalid format';
    case 'additionalProperties': return `unknown field ${String(p.additionalProperty)}`;
    case TEXT_KEYWORD: return 'must not contain NUL characters or unpaired surrogates';
    default: return e.message ?? 'is invalid';
  }
}

/** The first schema error as the API's `<field>: <reason>` validation error. */
export function schemaError(errors: ErrorObject[], context: string): AppError {
  const e = errors[0];
  if (!e) return new AppError('VALIDATION_ERROR', `${context}: is invalid`);
  let field = fieldPath(e.instancePath);
  if (e.keyword === 'required') field = [field, String((e.params as { missingProperty: string }).missingProperty)].filter(Boolean).join('.');
  if (!field) field = context === 'querystring' ? 'query' : context;
  return new AppError('VALIDATION_ERROR', `${field}: ${reason(e)}`);
}
