import http from 'node:http';

export interface Arrival {
  path: string;
  event: { id: string; event: string; data: Record<string, unknown> };
  at: number;
}

/** A local webhook receiver: answers 200 at once and reports each delivery with its arrival time (performance.now()). */
export async function startReceiver(onArrival: (a: Arrival) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      onArrival({ path: req.url ?? '/', event: JSON.parse(Buffer.concat(chunks).toString('utf8')), at });
    });
  });
  // Node's default, as receivers commonly have: with a hint of 1 s Node's client keeps no connection at all
  // (it keeps one only while at least a second of the server's keep-alive is left), so every delivery would connect.
  server.keepAliveTimeout = 5000;
  return listen(server);
}

/** A receiver that reads each request and never answers: every delivery to it runs into WEBHOOK_TIMEOUT_MS. */
export function startHangingReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  return listen(http.createServer((req) => req.resume()));
}

async function listen(server: http.Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
