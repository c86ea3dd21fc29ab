import { describe, expect, it } from 'vitest';
import { operatorTargetNames, pickedNotifiers, unknownNotifyPicks } from './notify-picks.ts';
import { parseRepoConfig } from './repo-config.ts';

describe("a repository's pick of the operator's notify targets", () => {
  it('names each target by its name, else its type', () => {
    const notify = [{ type: 'homeAssistant', name: 'phone' }, { type: 'slack' }] as unknown as Parameters<
      typeof operatorTargetNames
    >[0];
    expect(operatorTargetNames(notify)).toEqual(['phone', 'slack']);
  });

  it('an unknown name is an error at its path naming the targets there are', () => {
    expect(unknownNotifyPicks(['phone', 'pager'], ['phone', 'slack'])).toEqual([
      {
        path: 'notify[1]',
        message:
          '`notify[1]` names the notify target `pager`, which the operator did not configure; there are: phone, slack',
      },
    ]);
    expect(unknownNotifyPicks(['phone'], [])[0]!.message).toContain('the operator configured none');
    expect(unknownNotifyPicks(['phone'], ['phone'])).toEqual([]);
    expect(unknownNotifyPicks(undefined, [])).toEqual([]);
  });

  it('picks the named targets; no pick keeps them all, an empty one none', () => {
    const all = [{ target: 'phone' }, { target: 'slack' }];
    expect(pickedNotifiers(all, ['slack'])).toEqual([{ target: 'slack' }]);
    expect(pickedNotifiers(all, undefined)).toEqual(all);
    expect(pickedNotifiers(all, [])).toEqual([]);
  });

  it('blitz.yml takes `notify:` as a list of names', () => {
    const ok = parseRepoConfig('notify: [phone, ops-slack]\n');
    expect(ok.ok && ok.config.notify).toEqual(['phone', 'ops-slack']);
    const bad = parseRepoConfig('notify: phone\n');
    expect(bad.ok).toBe(false);
  });
});
