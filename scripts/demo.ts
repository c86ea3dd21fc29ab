// `npm run demo`: a complete blitz of a sample milestone with no account and no API key. The
// in-repo fake GitHub (contract-checked), a real bare git origin in a temp dir, fake agent CLIs
// that really commit and push, the real intake, runner and orchestrator over SQLite. It types
// `/blitz M1` as a signed webhook and prints the dashboard comment each time it changes.
import { startBlitzHarness } from '../test/support/blitz-harness.ts';

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

const main = async (): Promise<void> => {
  const h = await startBlitzHarness({
    forge: 'github',
    issues: milestone,
    review: true,
    agentEnv: { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '400' },
  });
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
  await h.comment('/blitz M1', 'alice');
  try {
    await h.drive(async () => {
      show();
      const run = await h.liveRun();
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
  } finally {
    await h.close();
  }
};

await main();
