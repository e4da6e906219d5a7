/** The closed set of error codes the API answers with, and their HTTP statuses (docs/contract/http.md#errors). */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  WITHDRAWAL_IN_PROGRESS: 400,
  INSUFFICIENT_BALANCE: 400,
  INVALID_STATE: 400,
  IDEMPOTENCY_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  PROVIDER_ERROR: 502,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
  }
}

/** 429 RATE_LIMITED that says when to come back: the error handler sends `retryAfter` (seconds) as `Retry-After`. */
export class RateLimited extends AppError {
  constructor(message: string, readonly retryAfter: number) {
    super('RATE_LIMITED', message);
  }
}

export const validationError = (field: string, reason: string) => new AppError('VALIDATION_ERROR', `${field}: ${reason}`);
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  success: false;
}

export const errorBody = (err: AppError): ErrorBody => ({ error: err.code, message: err.message, success: false });
