// Requests the GitHub forge needs to load a 500-issue milestone with 1,000 blocked-by edges from the
// contract-checked fake, beside the naive way (list the issues, then one dependency call per issue,
// as the manual workflow did), both counted from the fake's request log; plus wall time medians. Each
// run loads with a new adapter: the kept snapshot and the ETag cache would serve a second load of the
// same adapter without a request (the economy bench counts those), and this figure is a cold load.
import { createGithubClient } from '../src/forges/github/client.ts';
import { createGithubForge } from '../src/forges/github/index.ts';
import { silentLogger } from '../src/observability/logger.ts';
import { startFakeGithub } from '../test/support/fake-github/server.ts';
import { World } from '../test/support/world.ts';
import { type Bench, median, round } from './figures.ts';

const ISSUES = 500;
const RUNS = 3;

const seed = (): World => {
  const world = new World();
  const repo = world.addRepo('acme/app');
  const lib = world.addRepo('acme/lib');
  for (let n = 1; n <= 3; n += 1) world.addIssue(lib, { number: n, title: `lib ${n}` });
  world.addMilestone(repo, 'M1');
  for (let n = 1; n <= ISSUES; n += 1) {
    const blockedBy: (number | string)[] = [];
    if (n >= 2) blockedBy.push(n - 1);
    if (n >= 3) blockedBy.push(n - 2);
    if (n <= 3) blockedBy.push(`acme/lib#${n}`);
    world.addIssue(repo, { number: n, title: `issue ${n}`, milestone: 'M1', labels: ['area'], blockedBy });
  }
  const edges = [...repo.issues.values()].reduce((sum, i) => sum + i.blockedBy.length, 0);
  if (edges !== 1000) throw new Error(`bench seed has ${edges} edges, not 1000`);
  return world;
};

const bench: Bench = async () => {
  const world = seed();
  const fake = await startFakeGithub(world);
  const repo = { owner: 'acme', name: 'app' };
  const retry = { retries: 0, minDelayMs: 1, secondMs: 0 };
  const newForge = () =>
    createGithubForge({
      baseUrl: fake.apiUrl,
      auth: { token: 'test-token' },
      botLogin: world.botLogin,
      retry,
    });
  const gh = createGithubClient({
    baseUrl: fake.apiUrl,
    auth: { token: 'test-token' },
    logger: silentLogger(),
    retry,
    // Every run cold, as the adapter's runs are.
    conditional: false,
  });

  const adapterMs: number[] = [];
  const naiveMs: number[] = [];
  let requests = 0;
  let naiveRequests = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const forge = newForge();
    let before = fake.requests.length;
    let t = performance.now();
    const snap = await forge.loadMilestone(repo, 1);
    adapterMs.push(performance.now() - t);
    requests = fake.requests.length - before;
    if (snap.issues.length !== ISSUES) throw new Error(`loaded ${snap.issues.length} issues`);

    before = fake.requests.length;
    t = performance.now();
    const issues = await gh.paginate(gh.rest.issues.listForRepo, {
      ...{ owner: 'acme', repo: 'app' },
      milestone: '1',
      state: 'open',
      per_page: 100,
    });
    for (const i of issues)
      await gh.rest.issues.listDependenciesBlockedBy({
        owner: 'acme',
        repo: 'app',
        issue_number: i.number,
        per_page: 100,
      });
    naiveMs.push(performance.now() - t);
    naiveRequests = fake.requests.length - before;
  }
  await fake.close();
  fake.assertNoViolations();
  return [
    { name: 'forge.github.load_500.requests', value: requests, unit: 'requests' },
    { name: 'forge.github.load_500.naive_requests', value: naiveRequests, unit: 'requests' },
    { name: 'forge.github.load_500.ms_median', value: round(median(adapterMs), 1), unit: 'ms' },
    { name: 'forge.github.load_500.naive_ms_median', value: round(median(naiveMs), 1), unit: 'ms' },
  ];
};

export default bench;
