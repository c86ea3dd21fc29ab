import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../errors.ts';
import { canSwitchUsers, resolveWorkerUser, sameUserWarning } from './worker-user.ts';

const dir = mkdtempSync(join(tmpdir(), 'blitz-users-'));
const passwd = join(dir, 'passwd');
const group = join(dir, 'group');
writeFileSync(
  passwd,
  'root:x:0:0:root:/root:/bin/bash\nworker:x:1500:1600:Worker:/home/worker:/bin/sh\n# a comment\n',
);
writeFileSync(group, 'root:x:0:\nworkers:x:1700:\n');
const files = { passwd, group };

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (isAppError(err, 'config_invalid')) return err.message;
    throw err;
  }
  throw new Error('expected a config error');
};

describe('runner.user', () => {
  it('is off when unset: workers run as the bot', () => {
    expect(resolveWorkerUser({}, { botUid: 1000, ...files })).toBeUndefined();
  });

  it('resolves a name or a uid, with the user’s group and home, or the group named', () => {
    expect(resolveWorkerUser({ user: 'worker' }, { botUid: 0, ...files })).toEqual({
      uid: 1500,
      gid: 1600,
      name: 'worker',
      home: '/home/worker',
    });
    expect(resolveWorkerUser({ user: '1500', group: 'workers' }, { botUid: 0, ...files })).toMatchObject({
      uid: 1500,
      gid: 1700,
    });
    expect(resolveWorkerUser({ user: '4242', group: '4343' }, { botUid: 0, ...files })).toEqual({
      uid: 4242,
      gid: 4343,
      name: '4242',
    });
  });

  it('refuses, with the fix in words: a bot that is not root, an unknown user or group, root itself, a group alone', () => {
    const noCaps = 'Name:\tnode\nCapEff:\t0000000000000000\n';
    expect(
      refusal(() => resolveWorkerUser({ user: 'worker' }, { botUid: 1000, ...files, procStatus: noCaps })),
    ).toMatch(/bot runs as uid 1000 without CAP_SETUID, CAP_SETGID, CAP_CHOWN and CAP_KILL: .*setcap/);
    expect(refusal(() => resolveWorkerUser({ user: 'nobody-here' }, { botUid: 0, ...files }))).toBe(
      'runner.user: there is no user nobody-here on this host.',
    );
    expect(refusal(() => resolveWorkerUser({ user: 'worker', group: 'nope' }, { botUid: 0, ...files }))).toBe(
      'runner.group: there is no group nope on this host.',
    );
    expect(refusal(() => resolveWorkerUser({ user: 'root' }, { botUid: 0, ...files }))).toMatch(
      /must not be root/,
    );
    expect(refusal(() => resolveWorkerUser({ group: 'workers' }, { botUid: 0, ...files }))).toMatch(
      /runner.group is set without runner.user/,
    );
    expect(refusal(() => resolveWorkerUser({ user: '4242' }, { botUid: 0, ...files }))).toMatch(
      /set runner.group/,
    );
  });

  it('the same-user warning names the risk and the fix', () => {
    const text = sameUserWarning(1000);
    expect(text).toContain('uid 1000');
    expect(text).toContain('/proc/<pid>/environ');
    expect(text).toContain('runner.user');
    expect(text).toContain('_FILE');
  });

  it('reads the capabilities to switch users from CapEff of /proc/<pid>/status', () => {
    const status = (eff: string) =>
      `Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t${eff}\nCapBnd:\t000001ffffffffff\n`;
    // chown (0), kill (5), setgid (6), setuid (7): 0xe1; root's full set; each one missing; none; garbage.
    expect(canSwitchUsers(status('00000000000000e1'))).toBe(true);
    expect(canSwitchUsers(status('000001ffffffffff'))).toBe(true);
    for (const eff of ['00000000000000e0', '00000000000000c1', '00000000000000a1', '0000000000000061'])
      expect(canSwitchUsers(status(eff)), eff).toBe(false);
    expect(canSwitchUsers(status('0000000000000000'))).toBe(false);
    expect(canSwitchUsers('Name:\tnode\n')).toBe(false);
    expect(canSwitchUsers(status('zz'))).toBe(false);
    // A non-root bot holding them may run workers as another user.
    expect(
      resolveWorkerUser(
        { user: '4242', group: '4343' },
        { botUid: 1000, ...files, procStatus: status('00000000000000e1') },
      ),
    ).toMatchObject({ uid: 4242 });
  });
});
