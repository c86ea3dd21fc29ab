// slow: each fault runs a whole milestone on the in-process bot with real git and fake agents (both forges).
// The gate-side faults of an unattended run (issue 18): an integration review nobody answers or that
// names nothing new, red builds, a red smoke, a ship that is not proven live. Each ends in a named
// state with exactly one notification and a command that continues; once the fault clears the
// milestone finishes with every issue closed once.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRunList } from '../../src/status/api-data.ts';
import { tempDir } from '../support/git.ts';
import {
  expectMilestoneFinished,
  startUnattendedWorld,
  type UnattendedWorld,
} from '../support/unattended-world.ts';

let w: UnattendedWorld | undefined;
let server: Server | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
  }
});

const node = process.execPath;
const configPath = (forge: 'github' | 'gitea') =>
  forge === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml';
/** blitz.yml from plain data: argv lists as JSON flow sequences, which YAML reads as written. */
const yaml = (config: Record<string, unknown>): string =>
  `${Object.entries(config)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n`;

/** A command that fails until `flag` exists: the fault, and the person's fix. */
const redUntil = (flag: string): string[] => [
  node,
  '-e',
  `process.exit(require('node:fs').existsSync(${JSON.stringify(flag)}) ? 0 : 1)`,
];

/** The milestone finished with nothing of its issues left behind, and the fault told `alerts` times. */
const finishes = (x: UnattendedWorld, issues = [1, 2], alerts = 1) =>
  expectMilestoneFinished(x, issues, issues, { alerts, timeoutMs: 90_000 });

/** What the status API says the run waits for. */
const attention = async (x: UnattendedWorld) =>
  (await buildRunList({ runs: x.h.bot.runs, ledger: x.h.bot.runs.ledger })).runs[0]?.attention;

/** A world whose reviewer answers PR reviews clean and integration reviews as `mode` says (see fake-reviewer). */
const reviewedWorld = async (forge: 'github' | 'gitea', mode: string, files: Record<string, string> = {}) => {
  const modeFile = join(tempDir('review-mode-'), 'mode');
  writeFileSync(modeFile, mode);
  const x = await startUnattendedWorld({
    forge,
    files,
    review: true,
    reviewerArgs: ['--integration-mode-file', modeFile, '--verdict', 'clean', '--findings', '- none'],
  });
  return { x, mode: (m: string) => writeFileSync(modeFile, m) };
};

describe.each(['github', 'gitea'] as const)('unattended faults on %s (gate side)', (forge) => {
  it('a reviewer that never answers leaves the gate in review_unclear with one notice; `/blitz accept-review` finishes it', async () => {
    const { x } = await reviewedWorld(forge, 'exit');
    w = x;
    await x.start();
    await x.driveToState('review_unclear', 90_000);
    const [notice, ...more] = x.noticesOf('review_unclear');
    expect(more).toHaveLength(0);
    expect(notice?.sentence).toContain('no reviewer gave a verdict');
    expect(notice?.command).toBe('/blitz accept-review (or /blitz review to run it again)');
    expect(await attention(x)).toMatchObject({
      state: 'review_unclear',
      command: '/blitz accept-review (or /blitz review to run it again)',
    });
    // The state lasts and says nothing more; nothing was smoked or shipped.
    await x.round();
    await x.round();
    expect((await x.run())?.state).toBe('review_unclear');
    expect(x.noticesOf('review_unclear')).toHaveLength(1);
    expect(x.noticesOf('shipped')).toHaveLength(0);
    // `/blitz resume` is not what goes on from here, and says so.
    await x.command('/blitz resume');
    await x.round();
    expect(x.replies().at(-1)).toContain('waits on an unclear integration review');
    expect((await x.run())?.state).toBe('review_unclear');
    // A reader cannot accept it; a writer can.
    await x.command('/blitz accept-review', 'rita');
    await x.round();
    expect((await x.run())?.state).toBe('review_unclear');
    await x.command('/blitz accept-review');
    await x.round();
    expect(x.replies().some((r) => r.startsWith('Accepted the unclear integration review'))).toBe(true);
    await finishes(x);
    expect((await x.run())?.progress.integrationReview?.accepted?.by).toBe('alice');
  }, 180_000);

  it('a review that says minor but names nothing new waits in review_unclear; `/blitz review` runs it again, clean, and it ships', async () => {
    const { x, mode } = await reviewedWorld(forge, 'minor');
    w = x;
    await x.start();
    await x.driveToState('review_unclear', 90_000);
    const [notice, ...more] = x.noticesOf('review_unclear');
    expect(more).toHaveLength(0);
    expect(notice?.sentence).toContain('called it minor but named nothing new to file');
    mode('');
    await x.command('/blitz review');
    await x.round();
    expect(x.replies().some((r) => r.startsWith('Running the integration review again'))).toBe(true);
    await finishes(x);
    expect((await x.run())?.progress.integrationReview?.verdict).toBe('clean');
    expect(x.noticesOf('review_unclear')).toHaveLength(1);
  }, 180_000);

  it('a red smoke is filed as a finding and worked; red again at its allowance, BLOCKED with one notice; fixed and resumed, it ships', async () => {
    const dir = tempDir('red-smoke-');
    const green = join(dir, 'green');
    w = await startUnattendedWorld({
      forge,
      issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
      files: { [configPath(forge)]: yaml({ smoke: redUntil(green), smokeAttempts: 2 }) },
    });
    const x = w;
    await x.start();
    await x.driveToState('blocked', 120_000);
    const findings = [...x.repo.issues.values()].filter(
      (i) => !i.pull && i.title.startsWith('Smoke check red on blitz/m1'),
    );
    // The first red pass became one milestone issue, worked and closed like any other.
    expect(findings.map((f) => f.title)).toEqual(['Smoke check red on blitz/m1 (pass 1)']);
    expect(findings[0]!.milestoneId).toBe(x.world.milestoneByTitle(x.repo, 'M1')!.id);
    expect(x.closes(findings[0]!.number)).toBe(1);
    const [notice, ...more] = x.noticesOf('blocked');
    expect(more).toHaveLength(0);
    expect(notice?.sentence).toContain('the smoke check was red 2 times in a row');
    expect(notice?.command).toBe('/blitz resume');
    writeFileSync(green, '');
    await x.command('/blitz resume');
    await finishes(x, [1, findings[0]!.number]);
    expect(x.noticesOf('shipped')).toHaveLength(1);
  }, 180_000);

  it('relays a worker’s UNCERTAINTIES once, and files its out-of-scope bug as a blocker of the issue it names', async () => {
    w = await startUnattendedWorld({
      forge,
      agentEnv: {
        FAKE_AGENT_MODES: JSON.stringify({ 'acme/app#1': 'uncertain' }),
        FAKE_AGENT_UNCERTAINTY: 'Must the FEATURE_X env var be set in production before deploy?',
        FAKE_AGENT_BUG: 'the cart total rounds half-cents down; blocks #2',
      },
    });
    const x = w;
    await x.start();
    const bugs = () =>
      [...x.repo.issues.values()].filter((i) => !i.pull && i.title.startsWith('Bug found during blitz'));
    await x.drive(() => bugs().length > 0, 90_000);
    const [bug, ...others] = bugs();
    expect(others).toHaveLength(0);
    expect(bug!.milestoneId).toBe(x.world.milestoneByTitle(x.repo, 'M1')!.id);
    // Wired as a real dependency, so #2 waits for it.
    expect(x.world.issue(x.repo, 2)!.blockedBy.map((b) => b.number)).toContain(bug!.number);
    // Not a fault: the relay is a comment on the control-room issue, no notification.
    await finishes(x, [1, 2, bug!.number], 0);
    const relays = x.replies().filter((r) => r.includes('reports decisions for a person'));
    expect(relays).toHaveLength(1);
    expect(relays[0]).toContain('#1 reports decisions');
    expect(relays[0]).toContain('Activation steps');
    expect(relays[0]).toContain('env var be set in production');
    expect(relays[0]).toContain(`filed #${bug!.number}`);
  }, 180_000);

  it('three red builds stop BLOCKED with one notice; fixed and `/blitz resume`d, the milestone finishes', async () => {
    const dir = tempDir('red-build-');
    const green = join(dir, 'green');
    w = await startUnattendedWorld({
      forge,
      issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
      files: { [configPath(forge)]: yaml({ build: redUntil(green) }) },
    });
    const x = w;
    await x.start();
    await x.driveToState('blocked', 90_000);
    const [notice, ...more] = x.noticesOf('blocked');
    expect(more).toHaveLength(0);
    expect(notice?.sentence).toContain('the build failed 3 times');
    expect(notice?.command).toBe('/blitz resume');
    expect(await attention(x)).toMatchObject({ state: 'blocked', command: '/blitz resume' });
    // One blocker issue in the milestone (B55), held from workers, blocking the merge it holds up.
    const blockers = () =>
      [...x.repo.issues.values()].filter((i) => !i.pull && i.title.includes('BLOCKED: build red'));
    const [blocker, ...twice] = blockers();
    expect(twice).toHaveLength(0);
    expect(blocker!.title).toBe('blitz: M1 BLOCKED: build red on blitz/m1');
    expect(blocker!.milestoneId).toBe(x.world.milestoneByTitle(x.repo, 'M1')!.id);
    expect(blocker!.body).toContain('/blitz resume');
    expect(blocker!.body).toMatch(/on `blitz\/m1` at `[0-9a-f]{7}`/);
    expect(x.world.issue(x.repo, 1)!.blockedBy.map((b) => b.number)).toContain(blocker!.number);
    // The state lasts: more rounds send nothing more, and file nothing more.
    await x.round();
    await x.round();
    expect(x.noticesOf('blocked')).toHaveLength(1);
    expect(blockers()).toHaveLength(1);
    writeFileSync(green, '');
    await x.command('/blitz resume');
    // The build green again closes the blocker issue, once.
    await finishes(x, [1, blocker!.number]);
    expect(x.noticesOf('shipped')).toHaveLength(1);
  }, 180_000);

  it('a preview that never answers on its port is a failed ship, not ready; once it listens, `/blitz resume` ships it', async () => {
    // The preview's port is held by the test from the start (a port picked free and left unbound could
    // be handed to another server of the test meanwhile): every connection is dropped unanswered until
    // the preview "comes up", then it answers. The preview process the bot starts stays alive meanwhile.
    let up = false;
    server = createServer((_req, res) => res.end('hi'));
    server.on('connection', (socket) => {
      if (!up) socket.destroy();
    });
    await new Promise<void>((r) => server!.listen(0, '0.0.0.0', r));
    const { port } = server.address() as AddressInfo;
    const preview = 'setTimeout(() => process.exit(0), 20000);';
    w = await startUnattendedWorld({
      forge,
      issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
      files: {
        [configPath(forge)]:
          `${yaml({ build: [node, '-e', '0'] })}ship:\n  policy: local\n  preview: ${JSON.stringify([node, 'preview.cjs'])}\n  previewPort: ${port}\n  healthTimeoutSeconds: 1\n`,
        'preview.cjs': preview,
      },
    });
    const x = w;
    await x.start();
    await x.driveToState('blocked', 90_000);
    const [notice, ...more] = x.noticesOf('blocked');
    expect(more).toHaveLength(0);
    expect(notice?.sentence).toMatch(
      /shipping \(local\) failed: The preview at http:\/\/[\d.]+:\d+ is not ready/,
    );
    expect(notice?.command).toBe('/blitz resume');
    expect(x.noticesOf('shipped')).toHaveLength(0);
    up = true;
    await x.command('/blitz resume');
    await finishes(x, [1]);
    const [shipped, ...again] = x.noticesOf('shipped');
    expect(again).toHaveLength(0);
    expect(shipped?.url).toMatch(new RegExp(`^http://[\\d.]+:${port}$`));
  }, 180_000);

  it('a deploy whose health URL never answers 2xx in time is BLOCKED with the failure; healthy and resumed, it ships with the live URL', async () => {
    // The health server listens from the start (a port picked free and left unbound could be handed to
    // another server of the test meanwhile), answering 503 until the app "comes up".
    let healthy = false;
    server = createServer((req, res) =>
      res.writeHead(req.url === '/healthz' ? (healthy ? 200 : 503) : 404).end(healthy ? 'ok' : 'down'),
    );
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const healthUrl = `http://127.0.0.1:${port}/healthz`;
    w = await startUnattendedWorld({
      forge,
      issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
      files: {
        [configPath(forge)]:
          `${yaml({ build: [node, '-e', '0'] })}ship:\n  policy: deploy\n  deploy: ${JSON.stringify([node, '-e', '0'])}\n  healthUrl: ${healthUrl}\n  deployUrl: https://app.example/\n  healthTimeoutSeconds: 1\n`,
      },
    });
    const x = w;
    await x.start();
    await x.driveToState('blocked', 90_000);
    const [notice, ...more] = x.noticesOf('blocked');
    expect(more).toHaveLength(0);
    expect(notice?.sentence).toContain('shipping (deploy) failed: the deploy finished but is not healthy');
    expect(notice?.sentence).toContain(`http://127.0.0.1:${port}`);
    expect(notice?.command).toBe('/blitz resume');
    // The app comes up; the person resumes; the deploy runs again and is proven live.
    healthy = true;
    await x.command('/blitz resume');
    await finishes(x, [1]);
    const [shipped, ...again] = x.noticesOf('shipped');
    expect(again).toHaveLength(0);
    expect(shipped).toMatchObject({ path: 'deploy', url: 'https://app.example/' });
  }, 180_000);
});

describe.each(['github', 'gitea'] as const)('no notify target on %s (gate side)', (forge) => {
  it('a red build that stops the run BLOCKED @mentions the starter once, where they started it, with `/blitz resume`', async () => {
    const green = join(tempDir('red-build-'), 'green');
    w = await startUnattendedWorld({
      forge,
      noNotifyTargets: true,
      issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
      files: { [configPath(forge)]: yaml({ build: redUntil(green) }) },
    });
    const x = w;
    await x.start();
    await x.driveToState('blocked', 90_000);
    const mentions = () => x.replies().filter((r) => r.startsWith('@alice'));
    const blocked = () => mentions().filter((r) => r.includes('BLOCKED'));
    expect(blocked()).toHaveLength(1);
    expect(blocked()[0]).toContain('the build failed 3 times');
    expect(blocked()[0]).toContain('`/blitz resume`');
    // The blocker issue it files names the cause but mentions nobody: the BLOCKED comment above is the
    // one @mention of this cause (a mention in the issue's body too told the starter twice).
    const blocker = [...x.repo.issues.values()].find(
      (i) => !i.pull && i.title.includes('BLOCKED: build red'),
    );
    expect(blocker?.body).toMatch(/^The build stopped the blitz of /);
    expect(blocker?.body).not.toContain('@alice');
    // Said once: more rounds mention nobody again.
    await x.round();
    await x.round();
    expect(blocked()).toHaveLength(1);
    writeFileSync(green, '');
    await x.command('/blitz resume');
    await finishes(x, [1, blocker!.number], 0);
    // Shipped: told once, in the same place.
    expect(mentions().filter((r) => /^@alice \*\*blitz: .+ ready\*\*: /.test(r))).toHaveLength(1);
    expect(blocked()).toHaveLength(1);
  }, 180_000);
});
