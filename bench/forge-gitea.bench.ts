// Requests the Gitea adapter needs to load a 500-issue milestone with 1,000 blocked-by edges from
// the contract-checked fake, beside the naive count, and the wall time of a load (median of 5).
// Naive: the milestone, then per issue one GET of the issue and one of its dependency list, then
// one GET per edge to learn whether its blocker is closed. The adapter lists issues 50 to a page
// and reads blocker states from the dependency answers; Gitea has no batch dependency API, so one
// dependency request per issue remains.
import { performance } from 'node:perf_hooks';
import { createGiteaForge } from '../src/forges/gitea/index.ts';
import { startFakeGitea } from '../test/support/fake-gitea/server.ts';
import { World } from '../test/support/world.ts';
import { type Bench, median, round } from './figures.ts';

const issues = 500;

const seed = () => {
  const world = new World('blitz-bot');
  const repo = world.addRepo('acme/app');
  const m = world.addMilestone(repo, 'Big');
  world.addMilestone(repo, 'Earlier');
  let edges = 0;
  for (let n = 1; n <= 3; n += 1)
    world.addIssue(repo, { number: n, title: `earlier ${n}`, milestone: 'Earlier', state: 'closed' });
  for (let n = 4; n < 4 + issues; n += 1) {
    const blockedBy = [n - 1, n - 2].filter((b) => b >= 4);
    if (n < 7) blockedBy.push(n - 3); // three edges to closed issues of another milestone
    edges += blockedBy.length;
    world.addIssue(repo, { number: n, title: `issue ${n}`, milestone: 'Big', blockedBy });
  }
  return { world, milestoneId: m.id, edges };
};

const bench: Bench = async () => {
  const { world, milestoneId, edges } = seed();
  const fake = await startFakeGitea(world);
  try {
    const forge = createGiteaForge({ url: fake.url, token: fake.token, botLogin: world.botLogin });
    const app = { owner: 'acme', name: 'app' };
    const snap = await forge.loadMilestone(app, milestoneId);
    const requests = fake.requests.length;
    fake.assertNoViolations();
    if (snap.issues.length !== issues || snap.issues.reduce((s, i) => s + i.blockedBy.length, 0) !== edges) {
      throw new Error('benchmark load came back incomplete');
    }
    const times: number[] = [];
    for (let run = 0; run < 5; run += 1) {
      const t0 = performance.now();
      await forge.loadMilestone(app, milestoneId);
      times.push(performance.now() - t0);
    }
    return [
      { name: 'forge.gitea.load_500.requests', value: requests, unit: 'requests' },
      { name: 'forge.gitea.load_500.naive_requests', value: 1 + issues * 2 + edges, unit: 'requests' },
      { name: 'forge.gitea.load_500.wall_ms_median', value: round(median(times), 1), unit: 'ms' },
    ];
  } finally {
    await fake.close();
  }
};

export default bench;
