// A run's notice sent outside any pass (its start) keeps a failure on the run under the run lock.
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { silentLogger } from '../observability/logger.ts';
import type { Notifier } from '../ship/notice.ts';
import type { RunPatch } from '../store/run-store.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { runNoticeOf, sendRunNotice } from './run-notice.ts';

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
});
