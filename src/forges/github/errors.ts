// Turns octokit failures into AppErrors a person can act on: which call, on which repository, and what
// to change ("the app lacks issues:write on acme/app"). Parsed with zod: an error is outside input too.
import { z } from 'zod';
import { AppError, isAppError } from '../../errors.ts';
import { acceptedPermissionOf, formatPermission, parsePermission } from '../app-permission.ts';
import { formatRepo, type RepoRef } from '../types.ts';

const RequestFailure = z.object({
  status: z.number(),
  message: z.string(),
  response: z.object({ headers: z.record(z.string(), z.unknown()).optional() }).optional(),
});

const GraphqlFailure = z.object({
  errors: z.array(z.object({ message: z.string(), type: z.string().optional() })).min(1),
});

const ThrottledGraphql = z.object({ data: GraphqlFailure });

export interface CallContext {
  /** What the bot was doing, e.g. "close issue #3". */
  action: string;
  repo?: RepoRef;
  /** The app permission the call needs, e.g. "issues:write". */
  need?: string;
}

export const toAppError = (err: unknown, ctx: CallContext): AppError => {
  if (isAppError(err)) return err;
  const where = ctx.repo ? ` on ${formatRepo(ctx.repo)}` : '';
  const details = { action: ctx.action, repo: ctx.repo && formatRepo(ctx.repo) };
  // GraphQL answers its rate limit 200 with a RATE_LIMITED error; plugin-throttling, when it does not
  // wait for the reset, throws it with the answer's data.
  const gql = GraphqlFailure.safeParse(err);
  const throttled = ThrottledGraphql.safeParse(err);
  const errors = gql.success ? gql.data.errors : throttled.success ? throttled.data.data.errors : undefined;
  if (errors?.some((e) => e.type === 'RATE_LIMITED'))
    return new AppError(
      'rate_limited',
      `GitHub's GraphQL rate limit is spent while trying to ${ctx.action}${where}; retry after the reset`,
      details,
      { cause: err },
    );
  if (gql.success) {
    const first = gql.data.errors[0]!;
    const code =
      first.type === 'NOT_FOUND' ? 'not_found' : first.type === 'FORBIDDEN' ? 'forbidden' : 'forge_error';
    // GraphQL names no permission: a FORBIDDEN mutation lacked the call's own need (a merge: contents:write).
    const permission = code === 'forbidden' ? parsePermission(ctx.need) : undefined;
    return new AppError(
      code,
      `GitHub could not ${ctx.action}${where}: ${first.message}`,
      { ...details, ...(permission ? { permission } : {}) },
      { cause: err },
    );
  }
  const req = RequestFailure.safeParse(err);
  if (!req.success)
    return new AppError('forge_error', `GitHub call failed while trying to ${ctx.action}${where}`, details, {
      cause: err,
    });
  const { status, message } = req.data;
  const headers = req.data.response?.headers ?? {};
  const withStatus = { ...details, status };
  if (status === 401)
    return new AppError(
      'unauthorized',
      `GitHub rejected the app's credentials while trying to ${ctx.action}${where}; check the app id, private key and installation (or the token)`,
      withStatus,
      { cause: err },
    );
  if (
    status === 429 ||
    (status === 403 && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message)))
  )
    return new AppError(
      'rate_limited',
      `GitHub rate limit hit while trying to ${ctx.action}${where}; retry ${headers['retry-after'] !== undefined ? `after ${String(headers['retry-after'])} s` : 'after the reset'}`,
      withStatus,
      { cause: err },
    );
  if (status === 403) {
    // The permission GitHub says it would accept, else the call's own need: a typed fact, kept on the error.
    const permission =
      acceptedPermissionOf(headers['x-accepted-github-permissions']) ?? parsePermission(ctx.need);
    return new AppError(
      'forbidden',
      `the app lacks ${permission ? formatPermission(permission) : 'access'}${where} (GitHub answered 403 to ${ctx.action}: ${message})`,
      { ...withStatus, ...(permission ? { permission } : {}) },
      { cause: err },
    );
  }
  if (status === 404)
    return new AppError(
      'not_found',
      `GitHub found nothing to ${ctx.action}${where}: it does not exist, or the app is not installed there`,
      withStatus,
      { cause: err },
    );
  if (status >= 500)
    return new AppError(
      'forge_unavailable',
      `GitHub kept failing (HTTP ${status}) while trying to ${ctx.action}${where}; gave up after the allowed retries`,
      withStatus,
      { cause: err },
    );
  return new AppError(
    'forge_error',
    `GitHub refused to ${ctx.action}${where} (HTTP ${status}: ${message})`,
    withStatus,
    {
      cause: err,
    },
  );
};

/** Run one API call, turning any failure into an AppError with context. */
export const call = async <T>(ctx: CallContext, fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    throw toAppError(err, ctx);
  }
};

/** The HTTP status of an octokit failure, if it has one. */
export const statusOf = (err: unknown): number | undefined => {
  if (isAppError(err)) return typeof err.details.status === 'number' ? err.details.status : undefined;
  const parsed = RequestFailure.safeParse(err);
  return parsed.success ? parsed.data.status : undefined;
};
