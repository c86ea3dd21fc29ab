import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue } from '../../test/support/plan-arbitraries.ts';
import { nextActions } from './next-actions.ts';
import { blockNoticeOf, permissionBlockReason } from './permission-block.ts';
import type { MissingPermissionView } from './snapshot.ts';

const page = 'https://github.com/organizations/acme/settings/installations/77';
const missing: MissingPermissionView = { permission: { name: 'checks', level: 'read' }, page };
const snap = (o: { missingPermission?: MissingPermissionView; kept?: boolean; instead?: boolean } = {}) =>
  baseSnapshot([issue(1), issue(2)], {
    ...(o.missingPermission ? { missingPermission: o.missingPermission } : {}),
    ...(o.kept
      ? {
          keptBlocker: {
            reason: permissionBlockReason(missing),
            cause: { kind: 'missing_permission', permission: missing.permission, page },
            issue: 9,
          },
        }
      : {}),
    ...(o.instead ? { reportedInstead: { as: 'status', lacking: { name: 'checks', level: 'write' } } } : {}),
  });

describe('a GitHub App permission the installation lacks', () => {
  it('blocks the run alone, typed, naming the permission and the page where an admin accepts it', () => {
    const got = nextActions('running', snap({ missingPermission: missing }));
    expect(got).toEqual([
      {
        type: 'block',
        reason: permissionBlockReason(missing),
        cause: { kind: 'missing_permission', permission: { name: 'checks', level: 'read' }, page },
      },
    ]);
    expect(permissionBlockReason(missing)).toContain('`checks:read`');
    expect(permissionBlockReason(missing)).toContain(page);
    // Still missing on the next pass of the blocked run: the same block (said once by its reason).
    expect(nextActions('blocked', snap({ missingPermission: missing, kept: true }))).toEqual(got);
  });

  it('without a page it says where to find the installation settings', () => {
    const reason = permissionBlockReason({ permission: { name: 'contents', level: 'write' } });
    expect(reason).toContain('`contents:write`');
    expect(reason).toMatch(/Settings → GitHub Apps/);
  });

  it('the notice says the run goes on by itself', () => {
    const [block] = nextActions('running', snap({ missingPermission: missing }));
    if (block?.type !== 'block') throw new Error(`expected a block, got ${block?.type}`);
    expect(blockNoticeOf(block)).toMatch(/goes on by itself once GitHub says the permission was accepted/);
    const refused = { kind: 'forge_refused', refusal: 'access', detail: '' } as const;
    expect(blockNoticeOf({ type: 'block', reason: 'the forge refused', cause: refused })).toBe(
      'the forge refused; fix it, then resume',
    );
  });

  it('once a pass reads through, the kept blocker is lifted and the run goes on', () => {
    const got = nextActions('blocked', snap({ kept: true }));
    expect(got[0]).toMatchObject({ type: 'unblock' });
    expect(got).toContainEqual({ type: 'set_state', from: ['blocked'], to: 'running' });
    expect(got.some((a) => a.type === 'dispatch')).toBe(true);
  });

  it('a report taken as a commit status is said once (one key) and shown while it lasts; nothing stops', () => {
    const got = nextActions('running', snap({ instead: true }));
    const notes = got.filter((a) => a.type === 'issue_notice');
    expect(notes).toEqual([
      expect.objectContaining({
        event: 'warning',
        key: 'notice:reported-instead:status:checks:write',
        dashboard: 'warning',
      }),
    ]);
    expect(got.some((a) => a.type === 'dispatch')).toBe(true);
    expect(got.some((a) => a.type === 'stop' || a.type === 'block')).toBe(false);
  });
});
