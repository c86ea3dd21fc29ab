// A run's notice sent outside any pass (its start) keeps a failure on the run under the run lock.
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { silentLogger } from '../observability/logger.ts';
import type { Notifier } from '../ship/notice.ts';
import { mentionsStarter, runNoticeOf } from '../ship/run-notices.ts';
import type { RunPatch } from '../store/run-store.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { sendRunNotice } from './run-notice.ts';

const failing: Notifier = {
  target: 'ops-slack',
  events: new Set(['started']),
  notify: async () => ({ ok: false, target: 'ops-slack', attempts: 1, error: 'HTTP 500' }),
};

describe('sendRunNotice', () => {
  it('writes a failure kept on the run inside the lock the caller passes', async () => {
    const runs = openSqliteRunStore(':memory:');
    await runs.createRun(newRun('r1'));
    let locked = false;
    const writes: boolean[] = [];
    const store = {
      ...runs,
      updateRun: (id: string, patch: RunPatch, expect?: { version: number }) => {
        writes.push(locked);
        return runs.updateRun(id, patch, expect);
      },
    };
    const run = (await runs.getRun('r1'))!;
    await sendRunNotice(
      { logger: silentLogger(), notifiers: [failing], store },
      runNoticeOf(run, 'started', 'ann started a blitz of M1'),
      async (write) => {
        locked = true;
        try {
          await write();
        } finally {
          locked = false;
        }
      },
    );
    expect(writes).toEqual([true]);
    expect((await runs.getRun('r1'))!.progress.notifyFailures).toEqual([
      { target: 'ops-slack', error: 'started: HTTP 500' },
    ]);
    await runs.close();
  });

  it("tells only the targets the run's repository picked by name; with none picked, the starter is @mentioned", async () => {
    const runs = openSqliteRunStore(':memory:');
    await runs.createRun({ ...newRun('r1'), progress: { notifyTo: ['phone'] } });
    const told: string[] = [];
    const target = (name: string): Notifier => ({
      target: name,
      events: new Set(['started']),
      notify: async () => {
        told.push(name);
        return { ok: true, target: name, attempts: 1 };
      },
    });
    const notifiers = [target('phone'), target('ops-slack')];
    const run = (await runs.getRun('r1'))!;
    await sendRunNotice(
      { logger: silentLogger(), notifiers, store: runs },
      runNoticeOf(run, 'started', 'started'),
    );
    expect(told).toEqual(['phone']);
    expect(mentionsStarter({ notifiers }, run)).toBe(false);
    // No pick: every target; an empty pick: none, and the starter is told on the forge instead.
    expect(mentionsStarter({ notifiers }, { progress: {} })).toBe(false);
    expect(mentionsStarter({ notifiers }, { progress: { notifyTo: [] } })).toBe(true);
    await runs.close();
  });
});
