/**
 * How an export's process tells it did not start because another export of the merchant runs
 * (docs/contract/statement.md#exports): it exits with this code (EX_TEMPFAIL) before writing a byte.
 */
export const EXPORT_BUSY_EXIT_CODE = 75;

/**
 * The Retry-After of a refused second export: a million lines stream in 20–30 s (docs/statement.md), and a
 * stalled export is ended after EXPORT_STALL_TIMEOUT_MS (30 s by default).
 */
export const EXPORT_BUSY_RETRY_S = 30;
