import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError } from '../errors.js';

// Bodies are never coerced ("1000" and 10.5 are not cents, decisions part 1); query strings, params
// and headers arrive as text, so there numbers and booleans are read from their text form.
const makeAjv = (coerceTypes: boolean) =>
  addFormats.default(new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false }), [
    'email',
    'uri',
    'date-time',
  ]);

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema as object);

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
