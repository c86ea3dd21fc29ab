import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import { missingPermissionOf } from '../app-permission.ts';
import { toAppError } from './errors.ts';

const repo = { owner: 'acme', name: 'app' };
const http = (status: number, message = 'x', headers: Record<string, string> = {}) =>
  Object.assign(new Error(message), { status, response: { headers } });

describe('toAppError', () => {
  it('names the missing permission and the repository on a 403', () => {
    const e = toAppError(http(403, 'Resource not accessible by integration'), {
      action: 'close issue #3',
      repo,
      need: 'issues:write',
    });
    expect(e.code).toBe('forbidden');
    expect(e.message).toBe(
      'the app lacks issues:write on acme/app (GitHub answered 403 to close issue #3: Resource not accessible by integration)',
    );
  });

  it('keeps the permission GitHub says it would accept (X-Accepted-GitHub-Permissions) on the error, else the need', () => {
    const refused = http(403, 'Resource not accessible by integration', {
      'x-accepted-github-permissions': 'checks=read',
    });
    const e = toAppError(refused, {
      action: 'list the check runs of abc1234',
      repo,
      need: 'pull_requests:read',
    });
    expect(missingPermissionOf(e)).toEqual({ name: 'checks', level: 'read' });
    expect(e.message).toContain('the app lacks checks:read on acme/app');
    const needed = toAppError(http(403, 'Resource not accessible by integration'), {
      action: 'create the blitz check',
      need: 'checks:write',
    });
    expect(missingPermissionOf(needed)).toEqual({ name: 'checks', level: 'write' });
    expect(missingPermissionOf(toAppError(http(404), { action: 'a', need: 'checks:read' }))).toBeUndefined();
  });

  it("keeps a FORBIDDEN GraphQL mutation's own need as the permission it lacked", () => {
    const errors = [{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }];
    const e = toAppError({ errors }, { action: 'merge PR #4', repo, need: 'contents:write' });
    expect(e.code).toBe('forbidden');
    expect(missingPermissionOf(e)).toEqual({ name: 'contents', level: 'write' });
    // A NOT_FOUND is no permission, whatever the call needed.
    const missing = toAppError(
      { errors: [{ type: 'NOT_FOUND', message: 'x' }] },
      { action: 'a', need: 'contents:write' },
    );
    expect(missingPermissionOf(missing)).toBeUndefined();
  });

  it('tells a rate-limit 403 from a permission 403', () => {
    expect(
      toAppError(http(403, 'API rate limit exceeded', { 'x-ratelimit-remaining': '0' }), { action: 'a' })
        .code,
    ).toBe('rate_limited');
  });

  it('tells a GraphQL rate limit, as GitHub answers it and as plugin-throttling throws it', () => {
    const errors = [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for installation ID 1.' }];
    expect(toAppError({ errors }, { action: 'a' }).code).toBe('rate_limited');
    const thrown = Object.assign(new Error('GraphQL Rate Limit Exceeded'), { data: { errors } });
    expect(toAppError(thrown, { action: 'a' }).code).toBe('rate_limited');
  });

  it('maps 401, 404, 5xx and other statuses to their codes', () => {
    expect(toAppError(http(401), { action: 'a' }).code).toBe('unauthorized');
    expect(toAppError(http(404), { action: 'a', repo }).message).toContain('acme/app');
    expect(toAppError(http(502), { action: 'a' }).code).toBe('forge_unavailable');
    expect(toAppError(http(422), { action: 'a' }).code).toBe('forge_error');
  });

  it('maps GraphQL NOT_FOUND errors and passes AppErrors through untouched', () => {
    expect(
      toAppError({ errors: [{ message: 'Could not resolve', type: 'NOT_FOUND' }] }, { action: 'a' }).code,
    ).toBe('not_found');
    const own = new AppError('conflict', 'mine');
    expect(toAppError(own, { action: 'a' })).toBe(own);
  });
});
