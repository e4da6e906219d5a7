import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  /** performance.now() when the request arrived. */
  at: number;
}

/** How the receiver answers one request: a status, or hold the request open for `hangMs` first. */
export type Behaviour = number | { hangMs: number; status?: number } | { redirect: string };

/**
 * A real webhook receiver on 127.0.0.1. Each path answers its planned behaviours in order, then 200.
 */
export class Receiver {
  readonly hits: Hit[] = [];
  private readonly plans = new Map<string, Behaviour[]>();
  private server!: http.Server;
  private port = 0;
  private counter = 0;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        this.hits.push({ path, method: req.method ?? '', headers: req.headers, raw: Buffer.concat(chunks), at: performance.now() });
        res.on('error', () => {});
        this.answer(this.plans.get(path)?.shift() ?? 200, res);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  private answer(b: Behaviour, res: http.ServerResponse): void {
    if (typeof b === 'number') return void res.writeHead(b).end();
    if ('redirect' in b) return void res.writeHead(302, { Location: this.url(b.redirect) }).end();
    const timer = setTimeout(() => res.writeHead(b.status ?? 200).end(), b.hangMs);
    res.on('close', () => clearTimeout(timer));
  }

  /** A fresh path (so tests never share one), answering `behaviours` first. */
  path(...behaviours: Behaviour[]): string {
    const path = `/hook-${++this.counter}`;
    this.plans.set(path, behaviours);
    return path;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  hitsFor(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
