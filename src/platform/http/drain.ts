import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Readiness and draining (docs/contract/running.md#draining). On SIGTERM the process stops being ready (GET
 * /health/ready answers 503) and stops listening at once: a new connection is refused, which a load balancer
 * takes as "try another process" — a connection accepted now would only be cut at exit. Connections already
 * open stay open while anything is in flight: a request on one is served and answered with `Connection:
 * close`, so every connection ends after an answer instead of under a request. Then the process closes.
 * Everything is bounded by SHUTDOWN_GRACE_MS; past it, open connections are cut.
 */
export interface Drain {
  readonly draining: boolean;
  /**
   * Stops being ready and listening, waits for the requests in flight and for `alsoWaitFor` (the process's
   * running jobs: until they end it still answers /health/ready and /metrics on open connections), then
   * closes; by `deadline` (epoch ms).
   */
  drain(deadline: number, alsoWaitFor?: Promise<unknown>): Promise<void>;
  /**
   * Runs `end` when draining starts: for answers that would otherwise hold the drain to its deadline (an
   * event stream lasts minutes), so they end now and their client reconnects to another process.
   */
  onDrain(end: () => void): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Readiness and the SIGTERM drain; set by trackInFlight's caller. */
    drain: Drain;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ends the connection after this answer: the client learns it from the header and opens its next one elsewhere. */
const closeAfterAnswer = (res: ServerResponse) => {
  if (!res.headersSent) res.setHeader('connection', 'close');
};

/**
 * Tracks the responses in flight on `app`'s HTTP server: a response leaves on its 'close', which fires once it
 * is sent and also when the client goes away, so nothing is left counted. Raw server events, not Fastify
 * hooks: counted before any hook runs (app.inject does not count, a real port does).
 */
export function trackInFlight(app: FastifyInstance): Drain {
  const inFlight = new Set<ServerResponse>();
  const onDrain: (() => void)[] = [];
  let draining = false;
  app.server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (draining) closeAfterAnswer(res);
  });

  return {
    get draining() {
      return draining;
    },
    onDrain(end) {
      onDrain.push(end);
    },
    async drain(deadline, alsoWaitFor) {
      draining = true;
      inFlight.forEach(closeAfterAnswer);
      onDrain.forEach((end) => end());
      // net.Server's close, not http.Server's: since Node 19 the latter also destroys the idle keep-alive
      // connections, and a request a client sends on one at that moment would meet a reset.
      if (app.server.listening) NetServer.prototype.close.call(app.server);
      let othersDone = !alsoWaitFor;
      void alsoWaitFor?.finally(() => (othersDone = true));
      while ((inFlight.size > 0 || !othersDone) && Date.now() < deadline) await sleep(20);
      // Nothing in flight: Fastify's close ends the idle connections, answers a request still arriving on one
      // 503 with `Connection: close`, and resolves once every connection ended — after its answer, or at the
      // deadline, cut.
      const late = setTimeout(() => app.server.closeAllConnections(), Math.max(0, deadline - Date.now()));
      await app.close().finally(() => clearTimeout(late));
    },
  };
}
