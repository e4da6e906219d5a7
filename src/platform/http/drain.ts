import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * Readiness and draining (docs/contract/running.md#draining). On SIGTERM the process stops being ready (GET
 * /health/ready answers 503, so the load balancer takes it out) but keeps its listener open while
 * requests in flight finish — a request the balancer still sends meanwhile is served, not refused —
 * then closes. Everything is bounded by SHUTDOWN_GRACE_MS; past it, open connections are cut.
 */
export interface Drain {
  readonly draining: boolean;
  /**
   * Stops being ready, waits for the requests in flight and for `alsoWaitFor` (the process's running
   * jobs: until they end it still answers /health/ready and /metrics), then closes; by `deadline` (epoch ms).
   */
  drain(deadline: number, alsoWaitFor?: Promise<unknown>): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Readiness and the SIGTERM drain; set by trackInFlight's caller. */
    drain: Drain;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Counts the requests in flight on `app`'s HTTP server: one listener on the raw response's 'close', which
 * fires once a response is sent and also when the client goes away, so nothing is left counted. Raw server
 * events, not Fastify hooks: no per-request hook runs for it (app.inject does not count, a real port does).
 */
export function trackInFlight(app: FastifyInstance): Drain {
  let inFlight = 0;
  let draining = false;
  const done = () => void inFlight--;
  app.server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', done);
  });

  return {
    get draining() {
      return draining;
    },
    async drain(deadline, alsoWaitFor) {
      draining = true;
      let othersDone = !alsoWaitFor;
      void alsoWaitFor?.finally(() => (othersDone = true));
      while ((inFlight > 0 || !othersDone) && Date.now() < deadline) await sleep(20);
      const closing = app.close();
      const late = setTimeout(() => app.server.closeAllConnections(), Math.max(0, deadline - Date.now()));
      await closing.finally(() => clearTimeout(late));
    },
  };
}
