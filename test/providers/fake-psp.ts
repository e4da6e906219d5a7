import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bacenAnswer, problem, receivePix, type Answer, type BacenState, type Devolucao, type ReceivedPix } from './fake-psp-bacen.js';
import { apiPixConformance, type ApiPixRequest } from './fake-psp-openapi.js';
import { payoutAnswer, type Envio, type PayoutState } from './fake-psp-payouts.js';
import { recAnswer, recControls, type RecState } from './fake-psp-rec.js';

export type { Devolucao, Envio, ReceivedPix };

/**
 * A fake PSP speaking BACEN's API Pix v2 (token, cob, pix, devolução, Pix Automático) and the Efí-shaped payout
 * endpoints, on 127.0.0.1. With openssl it serves https and requires a client certificate issued by its
 * own throwaway CA (mTLS, as a real PSP); without openssl it falls back to plain http, which the adapter
 * accepts only with the test-only API_PIX_ALLOW_HTTP=true.
 *
 * Every request to an API Pix route is checked against BACEN's OpenAPI document, and so is every answer
 * the fake gives (fake-psp-openapi.ts); a request to a route that is neither API Pix nor a known payout
 * endpoint is a violation too. Violations are answered 400 and kept: `assertConformance()` (call it in
 * afterEach) and `close()` throw them, so no test passes over a non-conforming exchange.
 *
 * Layout: the server, token and test controls here; API Pix resources in fake-psp-bacen.ts; Pix Automático's and
 * the payer's bank in fake-psp-rec.ts; payouts in fake-psp-payouts.ts. Options go to FakePspOptions.
 */
export const CLIENT_ID = 'pixgate-client';
export const CLIENT_SECRET = 'client-secret-' + randomBytes(8).toString('hex');
const API_BASE = '/api/v2';

export interface FakePspOptions {
  /** Extra environment for createTestContext (e.g. API_PIX_RECONCILE_INTERVAL_S). */
  env?: Record<string, string>;
}

export interface Seen { method: string; path: string; query: Record<string, string>; body: any; authorization: string | undefined }

export interface FakePsp extends BacenState, PayoutState, RecState, ReturnType<typeof recControls> {
  /** Base URL of the API (`.../api/v2`); the token endpoint is `{origin}/oauth/token`. */
  baseUrl: string;
  tokenUrl: string;
  tls: boolean;
  /** Env for createTestContext: the adapter pointed here, certificates included. */
  env: Record<string, string>;
  /** Paths to the client certificate and key, and the CA. */
  files: { cert: string; key: string; ca: string } | null;
  /** API requests as received (path without the query). */
  seen: Seen[];
  tokenRequests: number;
  /** A payer's PIX reaches the PSP: known to `GET /pix/{e2eid}` and `GET /pix` from then on. */
  receive(p: Omit<ReceivedPix, 'endToEndId' | 'horario'> & { endToEndId?: string; horario?: string | Date }): ReceivedPix;
  /** Requests or answers that broke BACEN's document. */
  violations: string[];
  /** Throws the violations seen since the last call (and forgets them). */
  assertConformance(): void;
  /** The next request whose `METHOD url` (query included) starts with `prefix` gets this status (and a problem body). */
  failNext(prefix: string, status: number, title?: string): void;
  /** The next request matching `prefix` is answered only after `ms`. */
  delayNext(prefix: string, ms: number): void;
  /** Tokens issued so far stop being accepted (the PSP revoked them). */
  revokeTokens(): void;
  close(): Promise<void>;
}

function makeCertificates(dir: string) {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Fake PSP CA');
  for (const [name, cn, ext] of [['server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1'], ['client', CLIENT_ID, 'extendedKeyUsage=clientAuth']] as const) {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    writeFileSync(join(dir, `${name}.ext`), ext + '\n');
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  }
}

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

export async function startFakePsp(opts: FakePspOptions = {}): Promise<FakePsp> {
  const conformance = await apiPixConformance();
  const dir = mkdtempSync(join(tmpdir(), 'fake-psp-'));
  const tls = hasOpenssl();
  if (tls) makeCertificates(dir);
  const tokens = new Set<string>();
  const failures: Array<{ prefix: string; status: number; title: string }> = [];
  const delays: Array<{ prefix: string; ms: number }> = [];

  const state: BacenState & PayoutState & RecState = {
    cobs: new Map(), received: new Map(), devolucoes: new Map(), envios: new Map(), duplicateSends: 'replay',
    locrecs: new Map(), recs: new Map(), solicrecs: new Map(), cobrs: new Map(),
  };
  const psp = Object.assign(state, recControls(state), {
    tls, seen: [] as Seen[], tokenRequests: 0, violations: [] as string[],
    receive: (p: Parameters<FakePsp['receive']>[0]) => receivePix(state, p),
    assertConformance: () => {
      const found = psp.violations.splice(0);
      if (found.length) throw new Error(`the fake PSP saw exchanges that break BACEN's API Pix document:\n${found.join('\n')}`);
    },
    failNext: (prefix: string, status: number, title = 'Servico indisponivel') => void failures.push({ prefix, status, title }),
    delayNext: (prefix: string, ms: number) => void delays.push({ prefix, ms }),
    revokeTokens: () => tokens.clear(),
  });

  function token(headers: http.IncomingHttpHeaders, text: string): Answer {
    psp.tokenRequests++;
    const basic = 'Basic ' + Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
    const form = new URLSearchParams(text);
    if (headers.authorization !== basic) return [401, { error: 'invalid_client' }];
    if (headers['content-type'] !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'client_credentials') return [400, { error: 'invalid_request' }];
    const issued = randomBytes(16).toString('hex');
    tokens.add(issued);
    return [200, { access_token: issued, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') }];
  }

  function api(req: ApiPixRequest, url: string, authorization: string | undefined): Answer {
    psp.seen.push({ method: req.method, path: API_BASE + req.path, query: req.query, body: req.body, authorization });
    const where = `${req.method} ${req.path}`;
    const op = conformance.operation(req);
    if (op) {
      const wrong = conformance.checkRequest(req, op);
      if (wrong.length) {
        psp.violations.push(`request ${where}: ${wrong.join('; ')}`);
        return [400, problem(400, 'Requisicao fora do padrao API Pix')];
      }
    }
    if (!tokens.has((authorization ?? '').replace(/^Bearer /, ''))) return [401, problem(401, 'Acesso negado')];
    const failure = failures.findIndex((f) => `${req.method} ${url}`.startsWith(f.prefix));
    if (failure >= 0) {
      const [f] = failures.splice(failure, 1);
      return [f!.status, problem(f!.status, f!.title)];
    }
    const answer = op ? bacenAnswer(state, req) ?? recAnswer(state, req) : payoutAnswer(state, req.method, req.path, req.body);
    if (!answer) {
      psp.violations.push(`request ${where}: ${op ? 'an API Pix route this fake does not serve' : 'not a route of BACEN\'s API Pix nor a payout endpoint'}`);
      return [404, problem(404, 'Rota nao encontrada')];
    }
    if (op) {
      const wrong = conformance.checkResponse(op, answer[0], answer[1]);
      if (wrong.length) psp.violations.push(`answer ${answer[0]} to ${where}: ${wrong.join('; ')}`);
    }
    return answer;
  }

  function route(method: string, url: string, headers: http.IncomingHttpHeaders, text: string): Answer {
    const [path = '/', search = ''] = url.split('?', 2);
    if (method === 'POST' && path === '/oauth/token') return token(headers, text);
    if (!path.startsWith(API_BASE + '/')) {
      psp.violations.push(`request ${method} ${path}: outside the API base ${API_BASE}`);
      return [404, problem(404, 'Rota nao encontrada')];
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      psp.violations.push(`request ${method} ${path}: body is not JSON`);
      return [400, problem(400, 'Requisicao invalida')];
    }
    const plainHeaders = Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    const req: ApiPixRequest = { method, path: path.slice(API_BASE.length), query: Object.fromEntries(new URLSearchParams(search)), headers: plainHeaders, body };
    return api(req, url, headers.authorization);
  }

  const handler: http.RequestListener = (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => { text += c.toString('utf8'); });
    req.on('end', async () => {
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const delay = delays.findIndex((d) => `${method} ${url}`.startsWith(d.prefix));
      if (delay >= 0) await new Promise((r) => setTimeout(r, delays.splice(delay, 1)[0]!.ms));
      const [status, body] = route(method, url, req.headers, text);
      res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' }).end(JSON.stringify(body));
    });
  };

  const server = tls
    ? https.createServer({
      key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.crt')), ca: readFileSync(join(dir, 'ca.crt')),
      requestCert: true, rejectUnauthorized: true,
    }, handler)
    : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const files = tls ? { cert: join(dir, 'client.crt'), key: join(dir, 'client.key'), ca: join(dir, 'ca.crt') } : null;

  return Object.assign(psp, {
    baseUrl: `${origin}${API_BASE}`,
    tokenUrl: `${origin}/oauth/token`,
    files,
    env: {
      PIX_PROVIDER: 'api-pix',
      API_PIX_BASE_URL: `${origin}${API_BASE}`,
      API_PIX_TOKEN_URL: `${origin}/oauth/token`,
      API_PIX_CLIENT_ID: CLIENT_ID,
      API_PIX_CLIENT_SECRET: CLIENT_SECRET,
      API_PIX_WEBHOOK_TOKEN: 'whk-token-' + randomBytes(24).toString('hex'),
      API_PIX_PAYOUT_KEY: 'payouts@pixgate.example',
      API_PIX_RECEIVER_AGENCY: '0001',
      API_PIX_RECEIVER_ACCOUNT: '7654321',
      API_PIX_RECEIVER_ACCOUNT_TYPE: 'CORRENTE',
      API_PIX_POLL_INTERVAL_MS: '50',
      API_PIX_TIMEOUT_MS: '3000',
      ...(files ? { API_PIX_CERT_FILE: files.cert, API_PIX_KEY_FILE: files.key, API_PIX_CA_FILE: files.ca } : { API_PIX_ALLOW_HTTP: 'true' }),
      ...opts.env,
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
      psp.assertConformance();
    },
  });
}
