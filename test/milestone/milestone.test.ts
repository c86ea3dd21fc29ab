// `npm run test:milestone` (issue 37): the whole of it, as a user meets it. A 20-issue milestone with
// chains, fan-outs and joins, started by a person's signed `/blitz M1`, driven by the real bot
// (blitz-harness: the contract-checked fake GitHub or Gitea over a real bare origin, the real intake,
// runner and orchestrator) with REAL agent CLIs as its workers: two roster entries of the same tiers,
// claude and codex, each in the workers' bubblewrap sandbox against its own loopback mock model, which
// reads from each prompt which issue and which turn it is and answers with the tool calls that do the
// work and the FINAL REPORT. A fake CI runs the repository's test script on every pushed head, and
// the build gate runs it on the integration branch. What the milestone meets on the way:
//   - #2, #3 and #4 append to one file at one place on one base: the merges after the first are
//     refused for the conflict and go back to the sessions that wrote them, which resolve and commit;
//   - #5's first head fails CI: its session is told and commits the fix;
//   - claude's endpoint goes down once #7 is done (nothing else runs then: #8 waits on it): the
//     attempts that meet it fail as environment failures, the entry is parked and its issues go to
//     codex; the run itself never parks;
//   - a writer requests changes on #9's PR: its session addresses them.
// It ends with nobody acting but a person merging the milestone PR, and prints its wall-clock time,
// the attempts per issue and the forge requests per merged issue. BLITZ_DEBUG=1 prints the run's rows,
// attempts, the scripted turns and the CI results.
import { appendFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { endpointOf } from '../../src/plan/entry-park.ts';
import type { RunnerEvent } from '../../src/runner/types.ts';
import { agentEntry, installed } from '../agents/agent-clis.ts';
import { type MockModel, type Step, startMockModel, type TurnContext } from '../agents/mock-model-server.ts';
import { OFFLINE_ENV, offlineCheck, REGISTRY } from '../agents/offline.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { brokenFileTestScript, closeCiWorld, type FakeCi, startFakeCi } from '../support/fake-ci.ts';
import type { SeedIssue } from '../support/world.ts';
import { checksOf } from '../support/world-checks.ts';

const CONFLICTING = [2, 3, 4];
const RED_FIRST = 5;
/** Once this issue's attempt ends, claude's endpoint goes down (nothing else runs then: #8 waits on it). */
const LAST_BEFORE_OUTAGE = 7;
const REVIEWED = 9;

const part = (n: number, title: string, blockedBy: number[] = []): SeedIssue => ({
  number: n,
  title,
  body: `Add \`src/part-${n}.txt\`.`,
  ...(blockedBy.length ? { blockedBy } : {}),
});

/** Chains 5 → 6 → 7 → 8 and 9 → 14 → 15 → 16, fan-outs from #1 and #8, joins at 5, 17, 18, 19, 20. */
const milestone: SeedIssue[] = [
  part(1, 'Scaffold the parts list'),
  ...CONFLICTING.map((n, i) => ({
    number: n,
    title: `Add the ${['alpha', 'bravo', 'charlie'][i]} line`,
    // No issue names the file: nothing fences them apart, so all three start on the same base.
    body: 'One line in the letters file.',
    blockedBy: [1],
  })),
  { number: RED_FIRST, title: 'Red first: the store', body: 'Add `fake-5.txt`.', blockedBy: CONFLICTING },
  part(6, 'Chain: the model', [5]),
  part(7, 'Chain: the API', [6]),
  part(8, 'Chain: the views', [7]),
  part(REVIEWED, 'Reviewed: the list view', [8]),
  part(10, 'Fan-out: the detail view', [8]),
  part(11, 'Fan-out: the search view', [8]),
  part(12, 'Fan-out: the settings view', [8]),
  part(13, 'Fan-out: the help view', [8]),
  part(14, 'Chain: list paging', [REVIEWED]),
  part(15, 'Chain: list sorting', [14]),
  part(16, 'Chain: list filters', [15]),
  part(17, 'Join: detail and search', [10, 11]),
  part(18, 'Join: settings and help', [12, 13]),
  part(19, 'Join: the list and its neighbours', [16, 17]),
  part(20, 'Join: the whole app', [18, 19]),
];
const numbers = milestone.map((i) => i.number!);

const finalReport = (status: string): Step => ({
  text: `FINAL REPORT\nPR: none — branch committed\nTESTS: sh test.sh\nREVIEW: none\nUNCERTAINTIES:\n- none\nOUT-OF-SCOPE BUGS:\n- none\nSTATUS: done — ${status}`,
});
const commitStep = (change: string, message: string): Step => ({
  shell: `${change} && git add -A && git commit -qm ${JSON.stringify(message)}`,
});
/**
 * The runner merged the integration branch in and names the conflicted files: keep both sides of each
 * (the marker lines dropped) and commit the merge. No shell variables: claude's Bash tool refuses a
 * command it cannot check before it runs.
 */
const resolveConflicts = (prompt: string): Step => {
  const files = [...prompt.matchAll(/^- `([^`]+)`$/gm)].map((m) => m[1]!);
  return {
    shell: [
      ...files.flatMap((f) => [
        `grep -v -E '^(<<<<<<<|=======|>>>>>>>)' ${f} > ${f}.kept`,
        `mv ${f}.kept ${f}`,
        `git add ${f}`,
      ]),
      'git commit -q --no-edit',
    ].join(' && '),
  };
};

type TurnKind = 'task' | 'conflict' | 'ci' | 'review' | 'other';
const kindOf = (ctx: TurnContext): TurnKind => {
  if (ctx.turn === 0) return 'task';
  if (/was merged into your branch/.test(ctx.prompt)) return 'conflict';
  if (/CI failed on its head/.test(ctx.prompt)) return 'ci';
  if (/people with write access reviewed it/.test(ctx.prompt)) return 'review';
  return 'other';
};

interface Turn {
  cli: string;
  issue: number;
  kind: TurnKind;
}

/** The scripted agent of one endpoint: each issue's work, and what each resume asks for. */
const scriptOf =
  (cli: string, turns: Turn[], seen = new Set<string>()) =>
  (ctx: TurnContext): Step[] => {
    const issue = Number(/You are working on issue #(\d+)/.exec(ctx.task)?.[1] ?? 0);
    const kind = kindOf(ctx);
    // One entry per turn of a session (a turn is answered over several requests, one per step).
    const key = `${cli}#${issue}/${ctx.turn}`;
    if (!seen.has(key)) {
      seen.add(key);
      turns.push({ cli, issue, kind });
    }
    if (kind === 'conflict')
      return [resolveConflicts(ctx.prompt), finalReport('merged the base in, kept both sides')];
    if (kind === 'ci')
      return [
        commitStep(`printf 'fixed for #${issue}\\n' > fake-${issue}.txt`, 'Fix the red test'),
        finalReport('fixed what CI found'),
      ];
    if (kind === 'review')
      return [
        commitStep(`printf 'revised\\n' >> src/part-${issue}.txt`, 'Address the review'),
        finalReport('the review is addressed'),
      ];
    if (kind === 'other') return [finalReport('the work is committed')];
    if (CONFLICTING.includes(issue))
      return [
        commitStep(`printf 'line for #${issue}\\n' >> letters.txt`, `Add the line for #${issue}`),
        finalReport('the line is committed'),
      ];
    if (issue === RED_FIRST)
      return [
        commitStep(`printf 'broken start for #${issue}\\n' > fake-${issue}.txt`, 'Add the store'),
        finalReport('the store is committed'),
      ];
    return [
      commitStep(`mkdir -p src && printf 'part ${issue}\\n' > src/part-${issue}.txt`, `Add part ${issue}`),
      finalReport('the part is committed'),
    ];
  };

interface Figures {
  forge: string;
  seconds: number;
  attempts: Record<number, string[]>;
  requests: number;
  merged: number;
}
const figures: Figures[] = [];

let h: BlitzHarness | undefined;
let ci: FakeCi | undefined;
const mocks: MockModel[] = [];
afterEach(async () => {
  await closeCiWorld(ci, h);
  for (const m of mocks.splice(0)) await m.close();
  h = undefined;
  ci = undefined;
});

afterAll(() => {
  if (figures.length === 0) return;
  const lines = ['', 'test:milestone, 20 issues per forge:'];
  for (const f of figures) {
    const counts = Object.values(f.attempts).map((a) => a.length);
    const total = counts.reduce((s, n) => s + n, 0);
    lines.push(
      `  ${f.forge}: ${f.seconds.toFixed(1)} s wall clock; ${total} attempts for ${counts.length} issues (${(total / counts.length).toFixed(2)} per issue); ${f.requests} forge requests, ${(f.requests / f.merged).toFixed(1)} per merged issue`,
      `    attempts: ${Object.entries(f.attempts)
        .map(([n, a]) => `#${n} ${a.join('+')}`)
        .join(', ')}`,
    );
  }
  console.log(lines.join('\n'));
});

const claudeCli = installed('claude');
const codexCli = installed('codex');
// The workers find the installed CLIs on PATH (the runner's environment is this process's).
for (const cli of [codexCli, claudeCli])
  if (!('missing' in cli)) process.env.PATH = [...cli.pathPrepend, process.env.PATH].join(':');

it.runIf(process.env[OFFLINE_ENV] === '1')(
  `runs offline: loopback is the only interface and ${REGISTRY.host} is out of reach`,
  async () => {
    // Else an offline pass could be one with the registry in reach.
    expect(await offlineCheck()).toMatchObject({ offline: true });
  },
  60_000,
);

describe.each(['github', 'gitea'] as const)('a 20-issue milestone on %s, as a user meets it', (forge) => {
  it('finishes with real claude and codex workers through a conflict, an outage, a red CI and a review', async () => {
    if ('missing' in claudeCli) throw new Error(`claude is not installed: ${claudeCli.missing}`);
    if ('missing' in codexCli) throw new Error(`codex is not installed: ${codexCli.missing}`);
    const turns: Turn[] = [];
    const claudeModel = await startMockModel({ turns: [], script: scriptOf('claude', turns) });
    mocks.push(claudeModel);
    const codexModel = await startMockModel({ turns: [], script: scriptOf('codex', turns) });
    mocks.push(codexModel);
    const tiers = ['execution', 'design', 'subtle'];
    const claude = {
      ...agentEntry('claude', claudeModel.url, claudeCli.env),
      name: 'claude',
      tiers,
      costRank: 0,
    };
    const codex = { ...agentEntry('codex', codexModel.url, codexCli.env), name: 'codex', tiers, costRank: 1 };

    let downAt: number | undefined;
    const onRunnerEvent = (e: RunnerEvent) => {
      if (e.type !== 'attempt.finished' || downAt !== undefined || !h) return;
      void h.bot.runs.ledger.get(e.attemptId).then((a) => {
        if (a?.issue.number !== LAST_BEFORE_OUTAGE || downAt !== undefined) return;
        claudeModel.goDown();
        downAt = Date.now();
      });
    };

    const configPath = forge === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml';
    h = await startBlitzHarness({
      forge,
      issues: milestone,
      maxSessions: 3,
      roster: [claude, codex],
      files: {
        'letters.txt': '# letters\n',
        'test.sh': brokenFileTestScript,
        [configPath]: 'build: [sh, test.sh]\nci:\n  wait: always\n  maxFixAttempts: 2\n',
      },
      runner: {
        sandbox: 'bubblewrap',
        // The down endpoint waits an hour: it is not probed again within the run.
        environmentBackoff: { initialSeconds: 3600, maxSeconds: 7200 },
      },
      dashboardIntervalMs: 2000,
      onRunnerEvent,
    });
    const x = h;
    const checks = checksOf(x.world);

    // #9's first head keeps its CI result until the writer's review is in.
    let heldSha: string | undefined;
    let releaseHeld: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      releaseHeld = resolve;
    });
    ci = await startFakeCi({
      world: x.world,
      repo: x.repo,
      bareDir: x.origin.bareDir,
      forge,
      allBranches: true,
      gate: async (branch, sha) => {
        if (Number(/^m1\/(\d+)-/.exec(branch)?.[1]) !== REVIEWED) return;
        if (heldSha !== undefined && heldSha !== sha) return;
        heldSha = sha;
        await held;
      },
    });
    const prOf = (n: number) =>
      [...x.repo.issues.values()].find((i) => i.pull?.base === 'blitz/m1' && i.title.startsWith(`#${n}:`));

    const started = Date.now();
    await x.comment('/blitz M1', 'alice');
    let reviewed = false;
    const statesSeen = new Set<string>();
    let everParked = false;
    await x.drive(async () => {
      const run = await x.liveRun();
      if (run) statesSeen.add(run.state);
      if (run?.progress.park !== undefined) everParked = true;
      const pr = prOf(REVIEWED);
      if (!reviewed && pr && heldSha !== undefined) {
        // A writer asks for a change on a line of the head CI is still running on.
        checks.addReview(
          x.repo,
          {
            pull: pr.number,
            author: 'alice',
            state: 'CHANGES_REQUESTED',
            body: 'Please revise.',
            commitSha: heldSha,
          },
          [{ path: `src/part-${REVIEWED}.txt`, line: 1, body: 'Say that it was revised.' }],
        );
        reviewed = true;
        releaseHeld();
      }
      return run?.state === 'done' && (await x.bot.runs.ledger.listOpen()).length === 0;
    }, 480_000);
    const runSeconds = (Date.now() - started) / 1000;

    const run = (await x.liveRun())!;
    const rows = await x.bot.runs.listRunIssues(run.id);
    const attempts = await x.bot.runs.ledger.listByRun(run.id);
    const attemptsOf = (n: number) =>
      attempts.filter((a) => a.issue.number === n).map((a) => `${a.rosterEntry}:${a.outcome}`);

    if (process.env.BLITZ_DEBUG) {
      const brief = attempts.map((a) => [a.issue.number, a.rosterEntry, a.outcome, a.failureSummary]);
      console.log(JSON.stringify({ rows, turns, attempts: brief }, null, 1));
      console.log(ci.results.map((r) => [r.branch, r.sha.slice(0, 7), r.passed, r.output.slice(-200)]));
    }
    // Every issue closed once, by its merged PR; nothing redone from scratch.
    for (const n of numbers) {
      expect(x.world.issue(x.repo, n)?.state, `#${n}`).toBe('closed');
      expect(x.world.count('close', 'acme/app', n), `#${n} closed once`).toBe(1);
      expect(prOf(n)?.pull?.merged, `#${n} merged`).toBe(true);
      expect(rows.find((r) => r.number === n)?.bouncedAfter, `#${n} bounced`).toBeUndefined();
    }
    // One solved attempt (one session) per issue. The only others met claude's endpoint after it went
    // down; each of those issues went to codex next, and claude was given nothing after its first.
    const failed = attempts.filter((a) => a.outcome !== 'solved');
    expect(failed.length).toBeGreaterThan(0);
    for (const a of failed) {
      expect([a.rosterEntry, a.outcome], `#${a.issue.number}`).toEqual(['claude', 'environment_failure']);
      expect(Date.parse(a.startedAt)).toBeGreaterThanOrEqual(downAt!);
    }
    for (const n of numbers) {
      const mine = attemptsOf(n);
      expect(
        mine.filter((a) => a.endsWith(':solved')),
        `#${n}`,
      ).toHaveLength(1);
      if (mine.length > 1) expect(mine, `#${n}`).toEqual(['claude:environment_failure', 'codex:solved']);
    }
    const firstFailure = Math.min(...failed.map((a) => Date.parse(a.startedAt)));
    const claudeLater = attempts.filter(
      (a) => a.rosterEntry === 'claude' && Date.parse(a.startedAt) > firstFailure && a.outcome === 'solved',
    );
    expect(claudeLater).toEqual([]);

    // The outage was charged to claude's endpoint, not to the run: parked, never the run.
    expect(downAt).toBeDefined();
    expect(run.progress.entryParks?.[endpointOf(claude)]).toMatchObject({
      cause: 'endpoint_unreachable',
      entries: ['claude'],
    });
    expect(everParked).toBe(false);
    expect([...statesSeen].filter((s) => ['paused', 'blocked', 'parked'].includes(s))).toEqual([]);

    // The three conflicting issues: the first merged as it was, the other two went back to their
    // sessions (within the tries allowed), and every line is on the integration branch once.
    const tries = CONFLICTING.map((n) => rows.find((r) => r.number === n)?.conflictResumes ?? 0).sort();
    expect(tries[0]).toBe(0);
    expect(tries[1]).toBeGreaterThanOrEqual(1);
    expect(tries[2]).toBeGreaterThanOrEqual(1);
    const letters = await x.origin.git.ok(['show', 'blitz/m1:letters.txt']);
    expect(letters.split('\n').filter(Boolean).sort()).toEqual([
      '# letters',
      'line for #2',
      'line for #3',
      'line for #4',
    ]);
    expect(letters).not.toMatch(/^(<{7}|={7}|>{7})/m);
    expect(
      turns.filter((t) => t.kind === 'conflict' && CONFLICTING.includes(t.issue)).length,
    ).toBeGreaterThanOrEqual(2);

    // #5's first head went red; the session that wrote it was told and committed the fix; it merged green.
    const solvedBy = (n: number) => attempts.find((a) => a.issue.number === n && a.outcome === 'solved')!;
    const redRuns = ci.results.filter((r) => /^m1\/5-/.test(r.branch));
    expect(redRuns[0]?.passed).toBe(false);
    expect(turns).toContainEqual({ cli: solvedBy(RED_FIRST).rosterEntry, issue: RED_FIRST, kind: 'ci' });
    expect(await x.origin.git.ok(['show', 'blitz/m1:fake-5.txt'])).toContain(`fixed for #${RED_FIRST}`);
    // The writer's review reached #9's session, and the revision merged.
    expect(turns).toContainEqual({ cli: solvedBy(REVIEWED).rosterEntry, issue: REVIEWED, kind: 'review' });
    // Both CLIs did work: each entry solved issues.
    expect(new Set(attempts.filter((a) => a.outcome === 'solved').map((a) => a.rosterEntry))).toEqual(
      new Set(['claude', 'codex']),
    );
    expect(await x.origin.git.ok(['show', `blitz/m1:src/part-${REVIEWED}.txt`])).toContain('revised');
    // Nothing merged red: every merged head passed the fake CI.
    for (const n of numbers) {
      const head = prOf(n)!.pull!.headSha;
      expect(ci.results.find((r) => r.sha === head)?.passed, `#${n}'s merged head green`).toBe(true);
    }
    // Both models were only asked what they were scripted for.
    expect(claudeModel.unexpected).toEqual([]);
    expect(codexModel.unexpected).toEqual([]);

    // The milestone PR exists and says what ran.
    const milestonePr = [...x.repo.issues.values()].find(
      (i) => i.pull?.head === 'blitz/m1' && i.pull.base === 'main',
    );
    expect(milestonePr).toBeDefined();
    expect(milestonePr!.body).toContain('every workable issue closed');
    expect(milestonePr!.body).toMatch(/build ✓ at `[0-9a-f]{7,}`, smoke not configured/);

    // No person acted but alice's command and the writer's review.
    const people = [...x.repo.comments.values()].filter((c) => c.author !== x.world.botLogin);
    expect(people.map((c) => `${c.author}: ${c.body}`)).toEqual(['alice: /blitz M1']);

    // The person merges the milestone PR: main holds the whole milestone, and the bot starts nothing.
    const before = attempts.length;
    const merged = await x.repo.git.merge('main', 'blitz/m1', 'merge', `Merge ${milestonePr!.title}`);
    if (!('sha' in merged)) throw new Error('the milestone PR does not merge into main');
    Object.assign(milestonePr!.pull!, { merged: true, mergeCommitSha: merged.sha, mergedBy: 'alice' });
    x.world.setIssueState(x.repo, milestonePr!, 'closed', 'alice');
    x.world.record('merge', x.repo, milestonePr!.number, 'alice');
    await x.round();
    const onMain = await x.origin.git.ok(['ls-tree', '-r', '--name-only', 'main']);
    for (const n of numbers.filter((n) => n !== RED_FIRST && !CONFLICTING.includes(n)))
      expect(onMain).toContain(`src/part-${n}.txt`);
    expect((await x.bot.runs.ledger.listByRun(run.id)).length).toBe(before);

    const requests = (x.fakeGithub?.requests ?? x.fakeGitea?.requests ?? []).length;
    // BLITZ_MILESTONE_REQUESTS=<file>: every forge request in order, to see where they go.
    if (process.env.BLITZ_MILESTONE_REQUESTS)
      appendFileSync(
        process.env.BLITZ_MILESTONE_REQUESTS,
        (x.fakeGithub?.requests ?? x.fakeGitea?.requests ?? [])
          .map((r) => {
            const q = String((r.body as { query?: unknown } | undefined)?.query ?? '');
            const op = /^\s*(?:query|mutation)\s+(\w+)/.exec(q)?.[1] ?? r.operationId ?? '';
            // The bot's own status: its state and line, to see which of them said something new.
            const b = r.body as { context?: unknown; state?: unknown; description?: unknown } | undefined;
            const said = b?.context === 'blitz' ? ` ${b.state}: ${b.description}` : '';
            return `${forge} ${r.status} ${r.method} ${op} ${r.path}${said}\n`;
          })
          .join(''),
      );
    figures.push({
      forge,
      seconds: (Date.now() - started) / 1000,
      attempts: Object.fromEntries(numbers.map((n) => [n, attemptsOf(n)])),
      requests,
      merged: numbers.length,
    });
    console.log(`${forge}: the run took ${runSeconds.toFixed(1)} s to done`);
  }, 600_000);
});
