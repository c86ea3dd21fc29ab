// A red smoke check is a finding, not the end (seed 000 §4: "if the gate fails, file/fix the gap as a
// finding and run another pass"): it becomes an issue in the milestone carrying the check's last lines,
// and the smoke step goes back to "not run" so that the issue's merge is built and smoked again. The
// planner stops the run BLOCKED once the red passes reach their allowance (plan/gate-checks.ts).
import { fenced } from '../review/prompt.ts';
import { redactText } from '../runner/exec.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Log, Records } from '../runs/ports.ts';
import { firstTime, setProgress } from '../runs/run-writer.ts';

/** Files the red smoke of this pass once, then asks for another pass. */
export const fileSmokeFinding = async (deps: Records & Log, ctx: RunCtx): Promise<void> => {
  const gate = ctx.run.progress.smokeGate;
  const pass = gate?.failures ?? 0;
  // Recorded before the issue is created: a crash in between loses a finding rather than filing it twice.
  if (await firstTime(deps, ctx, `smoke-finding:${pass}`)) {
    const argv = ctx.repoConfig.smoke ?? [];
    const at = gate?.sha ? ` at ${gate.sha.slice(0, 7)}` : '';
    await ctx.forge.createIssue(ctx.repo, {
      title: `Smoke check red on ${ctx.run.integrationBranch} (pass ${pass})`,
      body: [
        `The readiness gate's smoke check (\`${argv.join(' ')}\`) failed on \`${ctx.run.integrationBranch}\`${at} during the blitz of ${ctx.run.milestoneTitle}: every issue was closed and the build was green.`,
        '',
        'Make the smoke check pass on the integration branch. Its last lines:',
        '',
        fenced(redactText(gate?.tail ?? '(no output kept)')),
      ].join('\n'),
      milestone: ctx.run.milestoneNumber,
    });
  }
  await setProgress(deps, ctx, { smoke: 'none' });
  deps.logger.info({ runId: ctx.run.id, pass }, 'red smoke filed as a finding; another pass runs');
};
