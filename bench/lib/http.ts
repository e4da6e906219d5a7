import http from 'node:http';

export interface HttpAnswer {
  status: number;
  text: string;
}

/** A failed request, named by what went wrong: an HTTP status, a socket error code or `timeout`. */
export class RequestFailed extends Error {
  constructor(readonly kind: string, detail = '') {
    super(`${kind}${detail ? `: ${detail}` : ''}`);
  }
}

/**
 * A keep-alive HTTP/1.1 client on loopback. `maxSockets` bounds the connections; requests beyond it
 * wait in the agent's queue, and the load generator counts that wait (latency runs from the scheduled time).
 */
export class HttpClient {
  private readonly agent: http.Agent;
  private readonly url: URL;
  private readonly defaults: Record<string, string>;

  constructor(base: string, opts: { maxSockets?: number; headers?: Record<string, string> } = {}) {
    this.url = new URL(base);
    this.defaults = opts.headers ?? {};
    this.agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 });
  }

  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs = 15_000): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: this.url.hostname, port: this.url.port, method, path, agent: this.agent, timeout: timeoutMs,
        headers: { ...this.defaults, ...headers, ...(payload && { 'content-type': 'application/json', 'content-length': String(payload.length) }) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new RequestFailed('timeout')));
      req.on('error', (err) => reject(err instanceof RequestFailed ? err : new RequestFailed((err as NodeJS.ErrnoException).code ?? 'network', err.message)));
      req.end(payload);
    });
  }

  /** The request must answer `expect`; returns the parsed JSON body. */
  async json<T = any>(method: string, path: string, body?: unknown, expect = 200, headers: Record<string, string> = {}): Promise<T> {
    const res = await this.request(method, path, body, headers);
    if (res.status !== expect) throw new RequestFailed(String(res.status), `${method} ${path}: ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text) as T;
  }

  /** Like json() but only checks the status: the load itself should not spend time parsing answers. */
  async expect(method: string, path: string, body: unknown, expect: number, headers: Record<string, string> = {}): Promise<string> {
    const res = await this.request(method, path, body, headers);
    if (res.status !== expect) throw new RequestFailed(String(res.status), res.text.slice(0, 300));
    return res.text;
  }

  close(): void {
    this.agent.destroy();
  }
}
