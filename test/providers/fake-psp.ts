import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildStaticBrCode, newEndToEndId } from '../../src/pix/index.js';

/**
 * A fake PSP speaking BACEN's API Pix v2 (token, cob, devolução) and the Efí-shaped payout endpoints,
 * on 127.0.0.1. With openssl it serves https and requires a client certificate issued by its own
 * throwaway CA (mTLS, as a real PSP); without openssl it falls back to plain http, which the adapter
 * accepts only with the test-only API_PIX_ALLOW_HTTP=true.
 */
export const CLIENT_ID = 'pixgate-client';
export const CLIENT_SECRET = 'client-secret-' + randomBytes(8).toString('hex');
const PSP_ISPB = '12345678';

export interface Seen { method: string; path: string; body: any; authorization: string | undefined }
export interface Devolucao { id: string; rtrId: string; valor: string; status: string; motivo?: string; horario: { solicitacao: string } }
export interface Envio { idEnvio: string; endToEndId: string; valor: string; status: string; motivo?: string; body: any }

export interface FakePsp {
  /** Base URL of the API (`.../api/v2`); the token endpoint is `{origin}/oauth/token`. */
  baseUrl: string;
  tokenUrl: string;
  tls: boolean;
  /** Env for createTestContext: the adapter pointed here, certificates included. */
  env: Record<string, string>;
  /** Paths to the client certificate and key, and the CA. */
  files: { cert: string; key: string; ca: string } | null;
  seen: Seen[];
  tokenRequests: number;
  cobs: Map<string, any>;
  devolucoes: Map<string, Devolucao>;
  envios: Map<string, Envio>;
  /** The next request whose `METHOD path` starts with `prefix` gets this status (and a problem body). */
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

const problem = (status: number, title: string) => ({ type: `https://pix.bcb.gov.br/api/v2/error/${title.replace(/\W/g, '')}`, title, status });

export async function startFakePsp(): Promise<FakePsp> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-psp-'));
  const tls = hasOpenssl();
  if (tls) makeCertificates(dir);
  const tokens = new Set<string>();
  const failures: Array<{ prefix: string; status: number; title: string }> = [];
  const delays: Array<{ prefix: string; ms: number }> = [];

  const psp = {
    tls, seen: [] as Seen[], tokenRequests: 0, cobs: new Map(), devolucoes: new Map<string, Devolucao>(), envios: new Map<string, Envio>(),
    failNext: (prefix: string, status: number, title = 'Servico indisponivel') => void failures.push({ prefix, status, title }),
    delayNext: (prefix: string, ms: number) => void delays.push({ prefix, ms }),
    revokeTokens: () => tokens.clear(),
  };

  async function answer(method: string, path: string, headers: http.IncomingHttpHeaders, text: string): Promise<[number, unknown]> {
    if (method === 'POST' && path === '/oauth/token') {
      psp.tokenRequests++;
      const basic = 'Basic ' + Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
      const form = new URLSearchParams(text);
      if (headers.authorization !== basic) return [401, { error: 'invalid_client' }];
      if (headers['content-type'] !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'client_credentials') return [400, { error: 'invalid_request' }];
      const token = randomBytes(16).toString('hex');
      tokens.add(token);
      return [200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') }];
    }
    const body = text ? JSON.parse(text) : undefined;
    psp.seen.push({ method, path, body, authorization: headers.authorization });
    if (!tokens.has((headers.authorization ?? '').replace(/^Bearer /, ''))) return [401, problem(401, 'Acesso negado')];
    const failure = failures.findIndex((f) => `${method} ${path}`.startsWith(f.prefix));
    if (failure >= 0) {
      const [f] = failures.splice(failure, 1);
      return [f!.status, problem(f!.status, f!.title)];
    }
    const now = new Date().toISOString();
    let m: RegExpExecArray | null;
    if ((m = /^\/api\/v2\/cob\/([A-Za-z0-9]+)$/.exec(path)) && method === 'PUT') {
      const txid = m[1]!;
      if (!/^[A-Za-z0-9]{26,35}$/.test(txid)) return [400, problem(400, 'Cobranca invalida')];
      const cob = {
        calendario: { criacao: now, expiracao: body.calendario.expiracao }, txid, revisao: 0, status: 'ATIVA',
        location: `pix.example.com/qr/v2/${txid}`, ...body,
        pixCopiaECola: buildStaticBrCode({ pixKey: body.chave, amount: 100, merchantName: 'PSP', merchantCity: 'SAO PAULO', txid: txid.slice(0, 25) }),
      };
      psp.cobs.set(txid, cob);
      return [201, cob];
    }
    if ((m = /^\/api\/v2\/pix\/([A-Za-z0-9]{32})\/devolucao\/([A-Za-z0-9]{1,35})$/.exec(path))) {
      const key = `${m[1]}/${m[2]}`;
      const known = psp.devolucoes.get(key);
      if (method === 'GET') return known ? [200, known] : [404, problem(404, 'Devolucao nao encontrada')];
      if (method === 'PUT') {
        if (known) return [400, problem(400, 'Id de devolucao ja utilizado')];
        const d: Devolucao = { id: m[2]!, rtrId: newEndToEndId(PSP_ISPB, new Date()).replace(/^E/, 'D'), valor: body.valor, status: 'EM_PROCESSAMENTO', horario: { solicitacao: now } };
        psp.devolucoes.set(key, d);
        return [201, d];
      }
    }
    if ((m = /^\/api\/v2\/gn\/pix\/([A-Za-z0-9]{1,35})$/.exec(path)) && method === 'PUT') {
      if (String(body.favorecido?.chave).endsWith('@nao-existe.test')) return [400, problem(400, 'Chave Pix nao encontrada')];
      const known = psp.envios.get(m[1]!);
      if (known) return [200, known];
      const envio: Envio = { idEnvio: m[1]!, endToEndId: newEndToEndId(PSP_ISPB, new Date()), valor: body.valor, status: 'EM_PROCESSAMENTO', body };
      psp.envios.set(m[1]!, envio);
      return [201, envio];
    }
    if ((m = /^\/api\/v2\/gn\/pix\/enviados\/id-envio\/([A-Za-z0-9]{1,35})$/.exec(path)) && method === 'GET') {
      const known = psp.envios.get(m[1]!);
      return known ? [200, known] : [404, problem(404, 'Pix enviado nao encontrado')];
    }
    return [404, problem(404, 'Rota nao encontrada')];
  }

  const handler: http.RequestListener = (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => { text += c.toString('utf8'); });
    req.on('end', async () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const delay = delays.findIndex((d) => `${method} ${path}`.startsWith(d.prefix));
      if (delay >= 0) await new Promise((r) => setTimeout(r, delays.splice(delay, 1)[0]!.ms));
      const [status, body] = await answer(method, path, req.headers, text);
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
    baseUrl: `${origin}/api/v2`,
    tokenUrl: `${origin}/oauth/token`,
    files,
    env: {
      PIX_PROVIDER: 'api-pix',
      API_PIX_BASE_URL: `${origin}/api/v2`,
      API_PIX_TOKEN_URL: `${origin}/oauth/token`,
      API_PIX_CLIENT_ID: CLIENT_ID,
      API_PIX_CLIENT_SECRET: CLIENT_SECRET,
      API_PIX_WEBHOOK_TOKEN: 'whk-token-' + randomBytes(24).toString('hex'),
      API_PIX_PAYOUT_KEY: 'payouts@pixgate.example',
      API_PIX_POLL_INTERVAL_MS: '50',
      API_PIX_TIMEOUT_MS: '1000',
      ...(files ? { API_PIX_CERT_FILE: files.cert, API_PIX_KEY_FILE: files.key, API_PIX_CA_FILE: files.ca } : { API_PIX_ALLOW_HTTP: 'true' }),
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
