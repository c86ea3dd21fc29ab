import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import {
  acceptedPermissionOf,
  formatPermission,
  missingPermissionOf,
  parsePermission,
} from './app-permission.ts';

describe('App permissions', () => {
  it('reads GitHub’s X-Accepted-GitHub-Permissions header: the first permission of the first alternative', () => {
    expect(acceptedPermissionOf('checks=read')).toEqual({ name: 'checks', level: 'read' });
    expect(acceptedPermissionOf('contents=write, pull_requests=write; issues=write')).toEqual({
      name: 'contents',
      level: 'write',
    });
    expect(acceptedPermissionOf('admin=admin')).toEqual({ name: 'admin', level: 'write' });
    for (const bad of [undefined, 3, '', 'checks', 'Checks=read', 'checks=owner', '../x=read'])
      expect(acceptedPermissionOf(bad)).toBeUndefined();
  });

  it('parses an adapter’s need and writes it back the same way', () => {
    const p = parsePermission('pull_requests:write');
    expect(p).toEqual({ name: 'pull_requests', level: 'write' });
    expect(formatPermission(p!)).toBe('pull_requests:write');
    expect(parsePermission('access')).toBeUndefined();
  });

  it('finds the permission only on a forbidden AppError that carries a well-formed one', () => {
    const permission = { name: 'checks', level: 'read' };
    expect(missingPermissionOf(new AppError('forbidden', 'x', { permission }))).toEqual(permission);
    expect(missingPermissionOf(new AppError('not_found', 'x', { permission }))).toBeUndefined();
    expect(missingPermissionOf(new AppError('forbidden', 'x', {}))).toBeUndefined();
    expect(
      missingPermissionOf(new AppError('forbidden', 'x', { permission: { name: 'a b', level: 'read' } })),
    ).toBeUndefined();
    expect(missingPermissionOf(new Error('forbidden'))).toBeUndefined();
  });
});
