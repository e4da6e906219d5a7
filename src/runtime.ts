import type pg from 'pg';
import type { Config } from './config.js';
import type { Cursors } from './platform/pagination.js';
import type { PixProvider } from './providers/port/provider.port.js';

/**
 * What every slice's commands run with: one Config, one pool, the cursor signer and the PIX provider.
 * A type only, so importing it ties a slice to no other; src/composition.ts builds it (createRuntime).
 */
export interface Runtime {
  config: Config;
  pool: pg.Pool;
  cursors: Cursors;
  provider: PixProvider;
}
