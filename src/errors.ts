// Errors are values with codes: one AppError class, a string-literal code, mapped once to an HTTP
// status (http/) and once to a user-facing sentence (the message, written for a person to act on).

export type AppErrorCode =
  | 'bad_signature'
  | 'bad_request'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'invalid_payload'
  | 'config_invalid'
  | 'not_found'
  | 'forbidden'
  | 'unauthorized'
  | 'conflict'
  /** A run write along an edge the run state table (plan/states.ts) does not have. */
  | 'forbidden_transition'
  | 'rate_limited'
  | 'forge_unavailable'
  | 'forge_error'
  | 'unmergeable'
  | 'git_failed'
  | 'workspace_escape'
  | 'tool_missing'
  | 'timeout'
  | 'cancelled'
  | 'store_error'
  | 'internal';

export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isAppError = (err: unknown, code?: AppErrorCode): err is AppError =>
  err instanceof AppError && (code === undefined || err.code === code);

const httpStatusByCode: Partial<Record<AppErrorCode, number>> = {
  bad_signature: 401,
  unauthorized: 401,
  bad_request: 400,
  invalid_payload: 400,
  config_invalid: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  forbidden_transition: 409,
  rate_limited: 429,
  forge_unavailable: 503,
  // The store is away (and, for a webhook, the spool is full): a failure the caller may retry.
  store_error: 503,
};

export const httpStatusOf = (err: AppError): number => httpStatusByCode[err.code] ?? 500;
