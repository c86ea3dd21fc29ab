// What the bot may have missed while it was down or its store was, recovered at start and when called
// after an outage. Nothing here acts by itself: each missed webhook goes back through the webhook path.
// - GitHub: the App's deliveries in the look-back window (`GET /app/hook/deliveries`, newest first,
//   cursor pages). An event (guid) none of whose attempts is `OK`, that was never redelivered, and
//   whose guid the store never recorded is redelivered once (`POST …/attempts`, its latest attempt),
//   oldest first: GitHub then sends it to the webhook URL, signed, with the same guid, and intake takes
//   it as any delivery. An event with a redelivery among its attempts is never asked for again.
// - Gitea (it never redelivers): the comments on the issues of every live run (its issues and the
//   issue carrying its dashboard) created since the run's last recorded activity. A comment carrying a
//   command whose id the store never recorded is made into the `issue_comment` payload Gitea would have
//   sent and handed to the receiver under delivery id `comment:<id>`: normalised, recorded (deduplicated
//   by that id), authorised and parsed exactly as a webhook is. Live processing marks each comment it
//   takes by the same id (process-events.ts), so neither path answers a comment the other took.
// Every read and every action is bounded per recovery (RecoveryLimits); what is left is logged.
import type { AppHookDeliveries, HookDelivery } from '../forges/github/hook-deliveries.ts';
import type { Forge, RepoComment } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RunStore } from '../store/run-store.ts';
import type { Store } from '../store/types.ts';
import { normalizeGitea } from './gitea/normalize.ts';
import { commandEventsOf } from './payload.ts';
import { commentKey } from './process-events.ts';
import type { Received, ReceiveResult } from './receive.ts';

export interface RecoveryLimits {
  /** How far back a recovery looks at most (default 24 h; GitHub keeps deliveries for 3 days). */
  lookbackHours: number;
  /** Slack before a run's last recorded activity (or an outage's start) (default 10 min). */
  marginMinutes: number;
  /** GitHub: pages of 100 deliveries read per recovery (default 10). */
  githubPages: number;
  /** GitHub: redeliveries asked per recovery (default 50). */
  maxRedeliveries: number;
  /** Gitea: pages of comments read per repository per recovery (default 10, of 50 each). */
  giteaPages: number;
  /** Gitea: commands taken per recovery (default 100). */
  maxComments: number;
}

export const defaultRecoveryLimits: RecoveryLimits = {
  lookbackHours: 24,
  marginMinutes: 10,
  githubPages: 10,
  maxRedeliveries: 50,
  giteaPages: 10,
  maxComments: 100,
};

export interface RecoveryDeps {
  /** The webhook path (the spooled receiver): what a recovered command goes through. */
  receive: (r: Received) => Promise<ReceiveResult>;
  store: Pick<Store, 'listDeliveries'>;
  runs: Pick<RunStore, 'listLiveRuns' | 'listRunIssues'>;
  /** The App's deliveries (GitHub configured). */
  github?: AppHookDeliveries;
  /** The Gitea forge and the bot's login there (Gitea configured). */
  gitea?: { forge: () => Promise<Forge>; botLogin: string };
  metrics: Pick<Metrics, 'recovered'>;
  logger: Logger;
  clock?: { now(): Date };
  limits?: Partial<RecoveryLimits>;
}

export interface RecoveryReport {
  /** GitHub deliveries GitHub was asked to send again. */
  redelivered: string[];
  /** Gitea comments taken as commands (their ids). */
  comments: number[];
  /** What a bound left unread or undone, in words (also logged). */
  leftOver: string[];
}

export interface Recovery {
  /**
   * One recovery pass; calls while one runs wait for it and then make their own. `since`: when an
   * outage began (the look-back starts there, less the margin, however recent the runs' activity).
   */
  recover(opts?: { since?: Date }): Promise<RecoveryReport>;
}

/** GitHub's word for an attempt the receiver answered 2xx (docs: a failed delivery's status is not `OK`). */
const delivered = (d: HookDelivery): boolean => d.status === 'OK';

export const createRecovery = (deps: RecoveryDeps): Recovery => {
  const limits = { ...defaultRecoveryLimits, ...deps.limits };
  const now = () => (deps.clock ?? { now: () => new Date() }).now().getTime();
  const marginMs = limits.marginMinutes * 60_000;
  // Events this process asked GitHub to redeliver (GitHub's own list says so across restarts).
  const asked = new Set<string>();
  let chain: Promise<unknown> = Promise.resolve();

  const github = async (gh: AppHookDeliveries, since: number, report: RecoveryReport) => {
    const attempts = new Map<string, HookDelivery[]>();
    let cursor: string | undefined;
    let complete = false;
    for (let page = 0; page < limits.githubPages; page += 1) {
      const { deliveries, next } = await gh.list({ perPage: 100, ...(cursor ? { cursor } : {}) });
      let older = false;
      for (const d of deliveries) {
        if (Date.parse(d.deliveredAt) < since) older = true;
        else attempts.set(d.guid, [...(attempts.get(d.guid) ?? []), d]);
      }
      if (older || !next) {
        complete = true;
        break;
      }
      cursor = next;
    }
    if (!complete)
      report.leftOver.push(
        `GitHub: more than ${limits.githubPages} pages of deliveries in the window; older ones not looked at`,
      );
    const failed = [...attempts.entries()]
      .filter(([guid, all]) => !all.some(delivered) && !all.some((d) => d.redelivery) && !asked.has(guid))
      .map(([guid, all]) => ({ guid, latest: all.reduce((a, b) => (b.id > a.id ? b : a)) }))
      .sort((a, b) => a.latest.id - b.latest.id);
    for (const { guid, latest } of failed) {
      if ((await deps.store.listDeliveries({ forge: 'github', deliveryId: guid })).length > 0) continue;
      if (report.redelivered.length >= limits.maxRedeliveries) {
        report.leftOver.push(
          `GitHub: more than ${limits.maxRedeliveries} failed deliveries; the rest wait for the next recovery`,
        );
        break;
      }
      asked.add(guid);
      await gh.redeliver(latest.id);
      report.redelivered.push(guid);
      deps.metrics.recovered.inc({ forge: 'github', outcome: 'redelivery_asked' });
      deps.logger.info(
        { forge: 'github', delivery: guid, event: latest.event, status: latest.status },
        'failed delivery: GitHub asked to redeliver it',
      );
    }
  };

  /** Per repository: the issues of live runs there, and the time to read comments from. */
  const giteaTargets = async (floor: number, outage?: number) => {
    const targets = new Map<
      string,
      { repo: { owner: string; name: string }; issues: Set<number>; since: number }
    >();
    const add = (repo: string, numbers: number[], since: number) => {
      const [owner, name] = repo.split('/');
      if (!owner || !name) return;
      const key = repo.toLowerCase();
      const t = targets.get(key) ?? { repo: { owner, name }, issues: new Set<number>(), since };
      for (const n of numbers) t.issues.add(n);
      t.since = Math.min(t.since, since);
      targets.set(key, t);
    };
    for (const run of await deps.runs.listLiveRuns()) {
      if (run.forge !== 'gitea') continue;
      const last = Date.parse(run.updatedAt);
      const from = Math.max(
        floor,
        Math.min(Number.isNaN(last) ? floor : last, outage ?? Infinity) - marginMs,
      );
      if (run.triggerIssue !== undefined) add(run.repo, [run.triggerIssue], from);
      const byRepo = new Map<string, number[]>();
      for (const i of await deps.runs.listRunIssues(run.id))
        byRepo.set(i.repo, [...(byRepo.get(i.repo) ?? []), i.number]);
      for (const [repo, numbers] of byRepo) add(repo, numbers, from);
    }
    return [...targets.values()];
  };

  /** The `issue_comment` webhook Gitea would have sent for a comment (what normalizeGitea reads). */
  const giteaPayload = (repo: { owner: string; name: string }, c: RepoComment) => {
    const user = { id: c.authorId, login: c.author };
    return {
      action: 'created',
      issue: { number: c.issueNumber, ...(c.isPullRequest ? { pull_request: {} } : {}) },
      comment: { id: c.id, body: c.body, user },
      is_pull: c.isPullRequest,
      repository: { name: repo.name, owner: { login: repo.owner } },
      sender: user,
    };
  };

  const gitea = async (
    g: NonNullable<RecoveryDeps['gitea']>,
    floor: number,
    outage: number | undefined,
    report: RecoveryReport,
  ) => {
    const targets = await giteaTargets(floor, outage);
    if (targets.length === 0) return;
    const forge = await g.forge();
    if (!forge.listRepoComments) return;
    for (const t of targets) {
      const since = new Date(t.since).toISOString();
      const { comments, complete } = await forge.listRepoComments(t.repo, {
        since,
        maxPages: limits.giteaPages,
      });
      if (!complete)
        report.leftOver.push(
          `Gitea: more than ${limits.giteaPages} pages of comments on ${t.repo.owner}/${t.repo.name} since ${since}; newer ones not looked at`,
        );
      for (const c of comments) {
        // Only comments written in the window (an edit is not a command, live either), on a run's
        // issues, by someone else than the bot, carrying at least one command line.
        if (Date.parse(c.createdAt) < t.since || !t.issues.has(c.issueNumber)) continue;
        if (c.author.toLowerCase() === g.botLogin.toLowerCase() || c.author === '') continue;
        const events = commandEventsOf(c.body, {
          forge: 'gitea',
          repo: t.repo,
          sender: { login: c.author, type: 'User' },
          issueNumber: c.issueNumber,
          isPullRequest: c.isPullRequest,
          commentId: c.id,
        });
        if (events.length === 0) continue;
        const key = commentKey(c.id);
        if ((await deps.store.listDeliveries({ forge: 'gitea', deliveryId: key })).length > 0) continue;
        if (report.comments.length >= limits.maxComments) {
          report.leftOver.push(
            `Gitea: more than ${limits.maxComments} missed commands; the rest wait for the next recovery`,
          );
          return;
        }
        const result = await deps.receive({
          forge: 'gitea',
          deliveryId: key,
          event: 'issue_comment',
          payload: giteaPayload(t.repo, c),
          normalize: normalizeGitea,
        });
        if (result.outcome === 'duplicate') continue;
        report.comments.push(c.id);
        deps.metrics.recovered.inc({ forge: 'gitea', outcome: 'comment_taken' });
        deps.logger.info(
          { forge: 'gitea', repo: `${t.repo.owner}/${t.repo.name}`, issue: c.issueNumber, comment: c.id },
          'missed command comment taken',
        );
      }
    }
  };

  const pass = async (opts: { since?: Date }): Promise<RecoveryReport> => {
    const report: RecoveryReport = { redelivered: [], comments: [], leftOver: [] };
    const floor = now() - limits.lookbackHours * 3_600_000;
    const outage = opts.since?.getTime();
    const failures: string[] = [];
    if (deps.github) {
      const since = Math.max(floor, outage === undefined ? floor : outage - marginMs);
      await github(deps.github, since, report).catch((err: unknown) => {
        failures.push('github');
        deps.logger.warn(
          { err },
          'recovering failed GitHub deliveries failed; tried again at the next recovery',
        );
      });
    }
    if (deps.gitea)
      await gitea(deps.gitea, floor, outage, report).catch((err: unknown) => {
        failures.push('gitea');
        deps.logger.warn(
          { err },
          'recovering missed Gitea commands failed; tried again at the next recovery',
        );
      });
    for (const left of report.leftOver) deps.logger.warn({ left }, 'recovery bounded: something was left');
    if (report.redelivered.length + report.comments.length > 0 || failures.length > 0)
      deps.logger.info(
        { redelivered: report.redelivered.length, comments: report.comments.length, failures },
        'recovery after restart or outage done',
      );
    return report;
  };

  return {
    recover(opts = {}) {
      const next = chain.then(
        () => pass(opts),
        () => pass(opts),
      );
      chain = next;
      return next;
    },
  };
};
