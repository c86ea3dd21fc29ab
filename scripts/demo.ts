// `npm run demo`: a complete blitz of a sample milestone with no account and no API key. The
// in-repo fake GitHub (contract-checked), a real bare git origin in a temp dir, fake agent CLIs
// that really commit and push, the real intake, runner and orchestrator over SQLite. It types
// `/blitz M1` as a signed webhook and prints the dashboard comment each time it changes. The run's
// status pages are served on 127.0.0.1 (DEMO_PORT, else a free port) with a token made for this demo,
// live while the run goes and until Ctrl-C after it.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../src/http/app.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createMetrics } from '../src/observability/metrics.ts';
import { createRedactor } from '../src/observability/redact.ts';
import { createRunEvents } from '../src/status/run-events.ts';
import { createStatusDeps } from '../src/status/status-deps.ts';
import { type BlitzHarness, startBlitzHarness } from '../test/support/blitz-harness.ts';

const milestone = [
  { number: 1, title: 'Data model for notes', body: 'Add `src/model.ts`.' },
  { number: 2, title: 'Store notes on disk', body: 'Add `src/store.ts`.', blockedBy: [1] },
  { number: 3, title: 'List notes', body: 'Add `src/list.ts`.', blockedBy: [2] },
  { number: 4, title: 'Show one note', body: 'Add `src/show.ts`.', blockedBy: [2] },
  { number: 5, title: 'Epic: reading notes', body: '- [ ] #3\n- [ ] #4', blockedBy: [3, 4] },
];

const plain = (body: string): string =>
  body
    .replace(/<!--[\s\S]*?-->\n?/g, '')
    .replace(/<details>[\s\S]*<\/details>/, '(dependency graph: a Mermaid flowchart, rendered by the forge)')
    .replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));

/** The bot's own status pages over the demo's run store, on a loopback port. */
const serveStatus = async (h: BlitzHarness, events: ReturnType<typeof createRunEvents>, token: string) => {
  const logger = createLogger({ level: 'silent' });
  const metrics = createMetrics();
  const app = createApp({
    store: h.bot.store,
    metrics,
    logger,
    version: 'demo',
    receive: async () => {
      throw new Error('the demo status server takes no webhooks');
    },
    status: createStatusDeps({
      statusToken: token,
      runs: h.bot.runs,
      deliveries: h.bot.store,
      events,
      logger,
      metrics,
      workspace: h.workspace,
      redact: createRedactor([]),
    }),
  });
  const server = serve({ fetch: app.fetch, port: Number(process.env.DEMO_PORT ?? 0), hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const stopSignal = (): Promise<void> =>
  new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

const main = async (): Promise<void> => {
  const events = createRunEvents();
  const h = await startBlitzHarness({
    forge: 'github',
    issues: milestone,
    review: true,
    agentEnv: { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '400' },
    onRunChanged: (runId, dashboard) => events.publish(runId, dashboard),
  });
  // Made for this demo only, printed so a browser can log in; the bot's own comes from STATUS_TOKEN.
  const token = randomBytes(18).toString('base64url');
  const status = await serveStatus(h, events, token);
  console.log('blitz-bot demo: fake GitHub at', h.fakeGithub?.url);
  console.log(`milestone M1: ${milestone.map((i) => `#${i.number} ${i.title}`).join(' · ')}\n`);
  console.log(`alice comments "/blitz M1" on #${h.trigger}\n`);
  let last = '';
  const show = () => {
    const d = h.world.commentsOn(h.repo, h.trigger).find((c) => c.body.includes('blitz-dashboard'));
    if (d && d.body !== last) {
      last = d.body;
      console.log(`${'─'.repeat(72)}\n${plain(d.body)}`);
    }
  };
  try {
    await h.comment('/blitz M1', 'alice');
    let page: string | undefined;
    await h.drive(async () => {
      const run = await h.liveRun();
      // The run exists once the orchestrator took the command (the first round).
      if (run && !page) {
        page = `${status.url}/runs/${encodeURIComponent(run.id)}`;
        console.log(`status page: ${page}\n  log in with the token ${token}\n`);
      }
      show();
      return (
        !!run && ['done', 'blocked'].includes(run.state) && (await h.bot.runs.ledger.listOpen()).length === 0
      );
    }, 180_000);
    show();
    const run = await h.liveRun();
    console.log(`${'─'.repeat(72)}\nrun ${run?.id}: ${run?.state} — ${run?.progress.reason ?? ''}`);
    const log = await h.origin.git.ok(['log', '--oneline', '--first-parent', 'blitz/m1']);
    console.log(`\nblitz/m1 on the origin:\n${log}`);
    const other = h.world
      .commentsOn(h.repo, h.trigger)
      .filter((c) => c.author === h.world.botLogin && !c.body.includes('blitz-dashboard'));
    for (const c of other) console.log(`\nbot said: ${c.body}`);
    const stopped = stopSignal();
    console.log(`\nThe run's status page stays up at ${page} (token ${token}); Ctrl-C stops the demo.`);
    await stopped;
  } finally {
    await status.close();
    await h.close();
  }
};

await main();
