import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Ends a streamed answer whose client takes nothing for `stallMs` (docs/contract/statement.md#exports): the
 * response has bytes waiting for the socket (`writableNeedDrain`) and no 'drain' came for that long — the
 * client stopped reading. A body slow to produce is no stall: the response then waits on nothing. Ending
 * means destroying `body`; Fastify then cuts the connection (the client sees the transfer fail, never a
 * short file that looks complete) and the body's producer stops with it.
 */
export function endWhenStalled(res: ServerResponse, body: Readable, stallMs: number): void {
  let progressAt = Date.now();
  const progressed = () => void (progressAt = Date.now());
  res.on('drain', progressed);
  // Checked a few times per period: a stall is ended between stallMs and stallMs plus one check.
  const check = setInterval(() => {
    if (!res.writableNeedDrain) progressed();
    else if (Date.now() - progressAt >= stallMs) body.destroy(new Error(`the client took nothing for ${stallMs} ms`));
  }, Math.min(1000, Math.max(10, Math.floor(stallMs / 10))));
  check.unref();
  res.once('close', () => {
    clearInterval(check);
    res.off('drain', progressed);
  });
}
