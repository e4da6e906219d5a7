import type pg from 'pg';
import { deleteInBatches, periodicTask } from '../platform/periodic.js';
import { deleteOldLinkHits } from './payment-link.sql.js';

const BATCH = 1000;

/** The per-address counters of the link page outlive their minute only until this sweep (every 10 minutes). */
export const linkHitRetention = (pool: pg.Pool) =>
  periodicTask(pool, 'payment-links.hits-retention', 600_000, () => deleteInBatches(BATCH, () => deleteOldLinkHits(pool, BATCH)));
