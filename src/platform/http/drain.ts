import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Readiness and draining (decisions part 18). On SIGTERM the process stops being ready (GET
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

const counted = Symbol('drain.counted');
type Counted = FastifyRequest & { [counted]?: boolean };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Registers the in-flight count on `app` (call before any other onRequest hook). */
export function trackInFlight(app: FastifyInstance): Drain {
  let inFlight = 0;
  let draining = false;
  const done = (req: Counted) => {
    if (!req[counted]) return;
    req[counted] = false;
    inFlight--;
  };
  app.addHook('onRequest', (req: Counted, _reply, next) => {
    req[counted] = true;
    inFlight++;
    next();
  });
  app.addHook('onResponse', (req, _reply, next) => {
    done(req);
    next();
  });
  app.addHook('onRequestAbort', (req, next) => {
    done(req);
    next();
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
