import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule, { type Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { parse } from 'yaml';

/**
 * BACEN's API Pix v2.9.0 OpenAPI document (a copy of BACEN's published document, Apache-2.0, so a fresh clone
 * tests against it), as a validator of the fake PSP's traffic: every request the adapter sends to an API
 * Pix route and every answer the fake gives must conform, through openapi-backend (ajv).
 *
 * Two readings are applied to the document, both stricter than a literal one:
 * - its patterns are XSD-style whole-value patterns written without anchors (`[a-zA-Z0-9]{32}`); ajv
 *   would accept any string CONTAINING such a run, so each is anchored (`^(?:…)$`);
 * - formats `date-time`, `date` and `email` are checked (ajv-formats), which ajv leaves out by default.
 *   Not `uri`: the document's own examples give `location` without a scheme (`pix.example.com/qr/…`),
 *   as PSPs do.
 * Three flaws of the document are read as its own text and examples mean them (a literal reading refuses
 * every request or answer of a due-date charge):
 * - a few patterns are written as JavaScript literals, slashes included (`PessoaFisica.cpf`: `/^\d{11}$/`),
 *   which no CPF matches: the slashes are dropped;
 * - `CobVValor.desconto` is a oneOf whose first branch (`descontoDataFixa`) requires nothing, so a per-day
 *   discount `{modalidade: 3|5, valorPerc}` matches both branches and fails "exactly one"; the violations of
 *   `CobVOperacaoInvalida` say what is meant — modalities 1–2 carry `descontoDataFixa`, 3–6 `valorPerc` —
 *   so the first branch requires `descontoDataFixa`;
 * - `DadosRecebedor` requires `logradouro`, `cidade`, `uf` and `cep` at the top of the object that includes
 *   it (the whole `CobVGerada` or `CobVPayload`) besides inside `recebedor`, where its nested allOf requires
 *   them again and where BACEN's examples put them: the top-level copy is dropped.
 * Pix Automático's schemas require a few names that nothing defines at that level and that none of BACEN's own
 * examples carry (ERRATA below): `RecBase` requires `retentativa` (the policy is `politicaRetentativa`, which
 * RecConfiguracao requires) and `idRec` (a `POST /rec` body has none: the PSP assigns it; the answers that hold one
 * require it on their own); `SolicRecBase` requires `pagador` (a `POST /solicrec` names the payer's account in
 * `destinatario`); `DadosPagadorRec` requires `ispbParticipante` beside `pagador`, not in it; `SolicRecCompleta`
 * requires `rec` (its example, and the schema, hold `recPayload`). Those names are dropped from those `required`
 * lists; everything else in them is required. `PixAutomatico.valor` (a cycle's PIX) is a money string whose `anyOf`
 * lists the component objects of `Pix.componentesValor`: no value could match it, so that `anyOf` goes.
 * The document is otherwise used as published, its quirks included: `PixConsultados` (the `GET /pix`
 * answer) lists `cobs` as required though its own example has none, so the fake sends `cobs: []`.
 */
const SPEC = join(dirname(fileURLToPath(import.meta.url)), 'bacen-pix-api-openapi-v2.9.0.yaml');

function anchorPatterns(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(anchorPatterns);
  if (node === null || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    // A property NAMED pattern would hold a schema object, not a string.
    if (k === 'pattern' && typeof v === 'string') {
      const inner = /^\/(\^.*\$)\/$/.exec(v)?.[1] ?? v;
      o[k] = inner.startsWith('^') ? inner : `^(?:${inner})$`;
    } else anchorPatterns(v);
  }
}

/** Required names no schema defines at that level and no BACEN example carries (see above). */
const ERRATA: Record<string, string[]> = {
  RecBase: ['idRec', 'retentativa'],
  SolicRecBase: ['pagador'],
  SolicRecCompleta: ['rec'],
  DadosPagadorRec: ['ispbParticipante'],
};

function applyRecErrata(schemas: Record<string, any>): void {
  for (const [name, drop] of Object.entries(ERRATA)) {
    const schema = schemas[name];
    if (!schema?.required || !drop.every((n) => schema.required.includes(n))) throw new Error(`erratum of ${name} no longer applies`);
    schema.required = schema.required.filter((n: string) => !drop.includes(n));
  }
  const valor = schemas.PixAutomatico?.properties?.valor;
  if (valor?.type !== 'string' || !valor.anyOf) throw new Error('erratum of PixAutomatico.valor no longer applies');
  delete valor.anyOf;
}

export interface ApiPixRequest {
  method: string;
  /** The path under the API base (`/pix/{e2eid}`), without the query. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export interface Conformance {
  /** The API Pix operation a request is for; null when the route is not in BACEN's API. */
  operation(req: ApiPixRequest): Operation | null;
  /** Violations of the request against its operation; [] when it conforms. */
  checkRequest(req: ApiPixRequest, op: Operation): string[];
  /** Violations of an answer (status + JSON body) against the operation's declared responses. */
  checkResponse(op: Operation, status: number, body: unknown): string[];
  /**
   * Violations of a value against one of the document's schemas (`CobVPayload`): for what is not a JSON answer of
   * an operation, as the payload inside a location's JWS.
   */
  checkSchema(name: string, value: unknown): string[];
}

const describe = (errors: Array<{ instancePath?: string; message?: string; params?: unknown }> | null | undefined) =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params ?? {})}`);

/** The document parsed with `yaml`; the parse (seconds on a busy machine) is cached as JSON under the tmp dir, keyed by content. */
function loadDocument(): Document {
  const text = readFileSync(SPEC, 'utf8');
  const cache = join(tmpdir(), `pixgate-api-pix-openapi-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as Document;
  const doc = parse(text) as Document;
  const tmp = `${cache}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(doc));
  renameSync(tmp, cache);
  return doc;
}

let loaded: Promise<Conformance> | null = null;

/** One validator per test process: compiling the document takes about a second. */
export function apiPixConformance(): Promise<Conformance> {
  loaded ??= (async () => {
    const definition = loadDocument();
    anchorPatterns(definition);
    const schemas = (definition.components?.schemas ?? {}) as Record<string, any>;
    schemas.CobVValor.properties.desconto.oneOf[0].required = ['descontoDataFixa'];
    delete schemas.DadosRecebedor.required;
    applyRecErrata(schemas);
    // The document names no operations; openapi-backend validates only named ones.
    for (const [path, item] of Object.entries(definition.paths ?? {})) {
      for (const [method, op] of Object.entries(item ?? {})) {
        if (op && typeof op === 'object' && 'responses' in op) (op as { operationId?: string }).operationId ??= `${method.toUpperCase()} ${path}`;
      }
    }
    const api = new OpenAPIBackend({
      definition, quick: true, validate: true, coerceTypes: true,
      customizeAjv: (ajv) => {
        addFormats.default(ajv as unknown as Ajv, ['date-time', 'date', 'email']);
        ajv.addFormat('uri', true);
        return ajv;
      },
    });
    await api.init();
    // The document's schemas on their own, with the same readings and formats as the operations'.
    let ajv: Ajv | null = null;
    const schemaValidator = () => {
      if (!ajv) {
        ajv = new AjvModule.default({ strict: false, allErrors: true });
        addFormats.default(ajv, ['date-time', 'date', 'email']);
        ajv.addFormat('uri', true);
        ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
        ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
        ajv.addSchema({ components: definition.components }, 'bacen');
      }
      return ajv;
    };
    // Validators compile on first use (seconds for this document on a busy machine): the operations the
    // adapter uses are compiled here, so no answer of the fake is slowed past the adapter's timeout.
    const used: Array<[string, string]> = [
      ['PUT', '/cob/{txid}'], ['PUT', '/cobv/{txid}'], ['GET', '/pix'], ['GET', '/pix/{e2eid}'], ['PUT', '/pix/{e2eid}/devolucao/{id}'],
      ['GET', '/pix/{e2eid}/devolucao/{id}'], ['POST', '/locrec'], ['POST', '/rec'], ['GET', '/rec/{idRec}'], ['PATCH', '/rec/{idRec}'],
      ['POST', '/solicrec'], ['PUT', '/cobr/{txid}'], ['GET', '/cobr/{txid}'], ['PATCH', '/cobr/{txid}'], ['POST', '/cobr/{txid}/retentativa/{data}'],
    ];
    for (const [method, path] of used) {
      const op = api.getOperation(`${method} ${path}`)!;
      api.validateRequest({ method, path: path.replace(/\{\w+\}/g, 'x'), headers: {}, query: {} }, op);
      for (const status of Object.keys(op.responses ?? {})) api.validateResponse({}, op, Number(status));
    }
    return {
      operation: (req) => api.matchOperation({ method: req.method, path: req.path, headers: req.headers, query: req.query }) ?? null,
      checkRequest: (req, op) => {
        const result = api.validateRequest({ method: req.method, path: req.path, headers: req.headers, query: req.query, body: req.body }, op);
        return result.valid ? [] : describe(result.errors as never);
      },
      checkSchema: (name, value) => {
        const validate = schemaValidator().getSchema(`bacen#/components/schemas/${name}`);
        if (!validate) throw new Error(`no schema ${name} in BACEN's document`);
        return validate(value) ? [] : describe(validate.errors as never);
      },
      checkResponse: (op, status, body) => {
        const declared = Object.keys(op.responses ?? {});
        // 401 is OAuth2's own answer to a bad token (RFC 6750), outside the document's responses.
        if (status === 401) return [];
        if (!declared.includes(String(status))) return [`status ${status} is not declared for ${op.operationId ?? `${op.method} ${op.path}`}`];
        const result = api.validateResponse(body, op, status);
        return result.valid ? [] : describe(result.errors as never);
      },
    };
  })();
  return loaded;
}
