import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/git.ts';
import { budgetOf } from '../plan/budget.ts';
import { runBudgetProbe } from './budget-command.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const node = (code: string) => [process.execPath, '-e', code];

describe('budget probe', () => {
  it('reads the JSON a probe prints and hands the planner its verdict', async () => {
    const r = await runBudgetProbe(
      node('console.log(JSON.stringify({recommendedMaxSessions:1,preferMedium:true,park:false}))'),
      { cwd: tempDir(), env },
    );
    expect(r).toEqual({ status: 'ok', recommendedMaxSessions: 1, preferMedium: true, park: false });
    expect(budgetOf(r, 4)).toEqual({ verdict: 'ok', recommendedMaxSessions: 1, preferMedium: true });
    const parked = await runBudgetProbe(
      node('console.log(JSON.stringify({recommendedMaxSessions:0,park:true}))'),
      { cwd: tempDir(), env },
    );
    expect(budgetOf(parked, 4).verdict).toBe('park');
  });

  it('unknown usage (null) is one-worker pressure', async () => {
    const r = await runBudgetProbe(node('console.log(JSON.stringify({recommendedMaxSessions:null}))'), {
      cwd: tempDir(),
      env,
    });
    expect(r).toMatchObject({ status: 'ok', recommendedMaxSessions: 1 });
  });

  it('a probe that is absent, exits non-zero, prints no JSON or the wrong shape is unknown usage: one worker, saying why', async () => {
    expect(await runBudgetProbe(undefined, { cwd: tempDir(), env })).toEqual({ status: 'absent' });
    const bad = [
      node('process.exit(3)'),
      node('console.log("hello")'),
      node('console.log(JSON.stringify({recommendedMaxSessions:"lots"}))'),
      ['/no/such/probe'],
    ];
    for (const argv of bad) {
      const r = await runBudgetProbe(argv, { cwd: tempDir(), env });
      expect(r.status, argv.join(' ')).toBe('failed');
      expect(budgetOf(r, 3)).toMatchObject({
        verdict: 'ok',
        recommendedMaxSessions: 1,
        unknown: { why: 'failed' },
      });
    }
  });
});
