// Checks on GitHub: a commit's check runs (with the annotations of failed ones) and its combined commit
// status normalised to CheckInfo, the tail of a GitHub Actions job's log (read from the signed URL the
// API redirects to, without our token), and the bot's own check run `blitz` created or updated in place.
// An installation without `checks: write` gets the bot's report as a commit status `blitz` instead
// (the PR gate reads it the same way); the report says so (`ReportedInstead`), and the repository's
// reports go that way until GitHub says new permissions were accepted (`checksGranted`).
import { AppError } from '../../errors.ts';
import { missingPermissionOf } from '../app-permission.ts';
import { openingReports } from '../opening-reports.ts';
import type {
  CheckAnnotation,
  CheckConclusion,
  CheckInfo,
  ProgressReport,
  RepoRef,
  ReportedInstead,
} from '../types.ts';
import type { GithubClient } from './client.ts';
import { call } from './errors.ts';

/** The name of the bot's own check run (and Gitea commit status context). */
export const progressCheckName = 'blitz';

/** GitHub's limit on a check run output's summary, in characters. */
export const maxSummaryChars = 65_535;
/** GitHub's limit on a commit status's description, in characters. */
const maxStatusDescriptionChars = 140;

/** The commit status a report is written as, where the bot may not write check runs. */
const statusState = (state: ProgressReport['state']): 'pending' | 'success' | 'failure' =>
  state === 'queued' || state === 'in_progress' ? 'pending' : state === 'failure' ? 'failure' : 'success';

/** What the bot's report became where the installation may not write check runs. */
const asStatus: ReportedInstead = { as: 'status', lacking: { name: 'checks', level: 'write' } };
/** Annotations read per failed check run: the first ones name the failure; the rest are noise in a prompt. */
const maxAnnotations = 50;

const at = (repo: RepoRef) => ({ owner: repo.owner, repo: repo.name });

/**
 * The check run status a report is written with. GitHub shows a queued check run as not started, but
 * the bot's gate works on a PR from the moment it opens it (its review leg and the repository's CI):
 * the opening report (`queued`) is in progress here, in its own words.
 */
export const checkRunStatus = (state: ProgressReport['state']): 'in_progress' | 'completed' =>
  state === 'queued' || state === 'in_progress' ? 'in_progress' : 'completed';

interface RawCheckRun {
  id: number;
  name: string;
  status: string;
  conclusion?: string | null;
  details_url?: string | null;
  html_url?: string | null;
  started_at?: string | null;
  output?: { title?: string | null; summary?: string | null; annotations_count?: number };
  app?: { slug?: string } | null;
}

interface RawStatus {
  id: number;
  context: string;
  state: string;
  description?: string | null;
  target_url?: string | null;
  created_at?: string;
  creator?: { login: string } | null;
}

const conclusions = new Set<CheckConclusion>([
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'timed_out',
  'action_required',
  'stale',
]);

export const toCheckFromRun = (run: RawCheckRun): CheckInfo => {
  const status =
    run.status === 'completed' ? 'completed' : run.status === 'queued' ? 'queued' : 'in_progress';
  const conclusion =
    status === 'completed'
      ? conclusions.has(run.conclusion as CheckConclusion)
        ? (run.conclusion as CheckConclusion)
        : 'error'
      : undefined;
  const summary = [run.output?.title, run.output?.summary].filter((s): s is string => !!s).join('\n\n');
  return {
    name: run.name,
    status,
    ...(conclusion ? { conclusion } : {}),
    summary,
    url: run.details_url ?? run.html_url ?? '',
    externalId: `check_run:${run.id}`,
    // An Actions job's check run carries the job's id: its log is read by that id.
    ...(run.app?.slug === 'github-actions' ? { actionsJobId: run.id } : {}),
    ...(run.app?.slug ? { reporter: run.app.slug } : {}),
    ...(run.started_at ? { startedAt: run.started_at } : {}),
  };
};

export const toCheckFromStatus = (s: RawStatus): CheckInfo => {
  const completed = s.state !== 'pending';
  const conclusion: CheckConclusion | undefined = !completed
    ? undefined
    : s.state === 'success'
      ? 'success'
      : s.state === 'failure'
        ? 'failure'
        : 'error';
  return {
    name: s.context,
    status: completed ? 'completed' : 'in_progress',
    ...(conclusion ? { conclusion } : {}),
    summary: s.description ?? '',
    url: s.target_url ?? '',
    externalId: `status:${s.id}`,
    ...(s.creator?.login ? { reporter: s.creator.login } : {}),
    ...(s.created_at ? { startedAt: s.created_at } : {}),
  };
};

const annotationLevel = (level: string | null | undefined): CheckAnnotation['level'] =>
  level === 'failure' ? 'failure' : level === 'warning' ? 'warning' : 'notice';

/** The last `maxBytes` of a response body, read as a stream so a huge log never sits in memory whole. */
export const readTail = async (res: Response, maxBytes: number): Promise<string> => {
  const reader = res.body?.getReader();
  let kept = Buffer.alloc(0);
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    kept = Buffer.concat([kept, value]);
    if (kept.length > 2 * maxBytes) kept = kept.subarray(kept.length - maxBytes);
  }
  let tail = kept.length > maxBytes ? kept.subarray(kept.length - maxBytes) : kept;
  // Do not start inside a UTF-8 sequence.
  while (tail.length > 0 && (tail[0]! & 0xc0) === 0x80) tail = tail.subarray(1);
  return tail.toString('utf8');
};

export interface GithubCheckOptions {
  /** The bot's login (`<slug>[bot]`): its app slug marks its own check runs. */
  botLogin: string;
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
}

export const checkOps = (gh: GithubClient, opts: GithubCheckOptions) => {
  const botSlug = opts.botLogin.replace(/\[bot\]$/, '');
  const doFetch = opts.fetch ?? globalThis.fetch;
  // The bot's own check run per head once created or found: later reports update it without a search
  // (its GraphQL node id too, where an answer named it: a report sent with the merge needs it).
  const ownRuns = new Map<string, { id: number; nodeId?: string }>();
  const remember = (key: string, id: number, nodeId?: string) => {
    const kept = ownRuns.get(key);
    ownRuns.delete(key);
    const node = nodeId ?? (kept?.id === id ? kept.nodeId : undefined);
    ownRuns.set(key, node ? { id, nodeId: node } : { id });
    // Bounded: the oldest heads (long merged) go first; a forgotten one is found by a search again.
    if (ownRuns.size > 2000) ownRuns.delete(ownRuns.keys().next().value!);
    absent.delete(key);
  };
  // Heads whose checks the bot read whole (a PR's feedback) without a check run of its own among them:
  // its first report there is a create without a search, and may go with the merge (pulls.ts).
  const absent = new Set<string>();
  // The first in-progress report after the opening one, only waiting on the legs it names, is not
  // sent (opening-reports.ts): per PR the check is created and completed.
  const opening = openingReports();
  // Heads whose last report went in progress (queued too): a report that only says the worker does what
  // the last one resumed it for (`ProgressReport.working`) is not sent there; the resume said so.
  const running = new Set<string>();
  const sentOn = (key: string, state: ProgressReport['state']) => {
    opening.sent(key, state);
    running.delete(key);
    if (checkRunStatus(state) !== 'in_progress') return;
    running.add(key);
    if (running.size > 2000) running.delete(running.values().next().value!);
  };
  const headKey = (repo: RepoRef, sha: string) => `${repo.owner}/${repo.name}@${sha}`.toLowerCase();
  // Repositories whose installation refused the bot's check run: its reports go as commit statuses.
  const statusOnly = new Set<string>();
  const repoKey = (repo: RepoRef) => `${repo.owner}/${repo.name}`.toLowerCase();

  const reportAsStatus = async (repo: RepoRef, sha: string, report: ProgressReport): Promise<void> => {
    await call(
      { action: `set the ${progressCheckName} status on ${sha.slice(0, 7)}`, repo, need: 'statuses:write' },
      () =>
        gh.rest.repos.createCommitStatus({
          ...at(repo),
          sha,
          state: statusState(report.state),
          context: progressCheckName,
          description: report.title.slice(0, maxStatusDescriptionChars),
          ...(report.detailsUrl ? { target_url: report.detailsUrl } : {}),
        }),
    );
  };

  const annotationsOf = async (repo: RepoRef, runId: number): Promise<CheckAnnotation[]> => {
    const { data } = await call(
      { action: `read the annotations of check run ${runId}`, repo, need: 'checks:read' },
      () => gh.rest.checks.listAnnotations({ ...at(repo), check_run_id: runId, per_page: maxAnnotations }),
    );
    return data.map((a) => ({
      path: a.path,
      startLine: a.start_line,
      level: annotationLevel(a.annotation_level),
      message: a.message ?? '',
      ...(a.title ? { title: a.title } : {}),
    }));
  };

  const listChecks = async (repo: RepoRef, sha: string): Promise<CheckInfo[]> => {
    const runs = await call(
      { action: `list the check runs of ${sha.slice(0, 7)}`, repo, need: 'checks:read' },
      () =>
        gh.paginate(gh.rest.checks.listForRef, { ...at(repo), ref: sha, filter: 'latest', per_page: 100 }),
    );
    const combined = await call(
      { action: `read the combined status of ${sha.slice(0, 7)}`, repo, need: 'statuses:read' },
      () => gh.rest.repos.getCombinedStatusForRef({ ...at(repo), ref: sha, per_page: 100 }),
    );
    const fromRuns = await Promise.all(
      runs.map(async (run) => {
        const check = toCheckFromRun(run);
        const failed =
          check.status === 'completed' && !['success', 'neutral', 'skipped'].includes(check.conclusion ?? '');
        if (failed && (run.output?.annotations_count ?? 0) > 0)
          check.annotations = await annotationsOf(repo, run.id);
        return check;
      }),
    );
    return [...fromRuns, ...combined.data.statuses.map(toCheckFromStatus)];
  };

  /** The bot's report as its own check run `blitz`: found or created on the head, updated in place. */
  const reportAsCheckRun = async (
    repo: RepoRef,
    sha: string,
    report: ProgressReport,
    opts: { first?: boolean },
  ): Promise<void> => {
    const key = headKey(repo, sha);
    const known = ownRuns.get(key)?.id;
    // Not known: searched for, unless the bot has never reported on this head (its PR is new) or its
    // last read of the head's checks held none of the bot's.
    const existing =
      known !== undefined || opts.first || absent.has(key)
        ? undefined
        : await call(
            {
              action: `find the ${progressCheckName} check on ${sha.slice(0, 7)}`,
              repo,
              need: 'checks:read',
            },
            () =>
              gh.rest.checks.listForRef({
                ...at(repo),
                ref: sha,
                check_name: progressCheckName,
                filter: 'latest',
                per_page: 100,
              }),
          );
    const mine = known ?? existing?.data.check_runs.find((r) => r.app?.slug === botSlug)?.id;
    const state = report.state;
    const fields = {
      ...(checkRunStatus(state) === 'in_progress'
        ? { status: 'in_progress' as const }
        : { status: 'completed' as const, conclusion: state as 'success' | 'failure' | 'neutral' }),
      ...(report.detailsUrl ? { details_url: report.detailsUrl } : {}),
      output: {
        title: report.title.slice(0, 255),
        summary: report.summary.slice(0, maxSummaryChars),
      },
    };
    if (mine !== undefined) {
      const updated = await call(
        {
          action: `update the ${progressCheckName} check on ${sha.slice(0, 7)}`,
          repo,
          need: 'checks:write',
        },
        () => gh.rest.checks.update({ ...at(repo), check_run_id: mine, ...fields }),
      );
      remember(key, mine, updated.data.node_id);
      sentOn(key, state);
      return;
    }
    const created = await call(
      { action: `create the ${progressCheckName} check on ${sha.slice(0, 7)}`, repo, need: 'checks:write' },
      () => gh.rest.checks.create({ ...at(repo), name: progressCheckName, head_sha: sha, ...fields }),
    );
    remember(key, created.data.id, created.data.node_id);
    sentOn(key, state);
  };

  return {
    listChecks,

    async jobLogTail(repo: RepoRef, jobId: number, maxBytes: number): Promise<string | undefined> {
      // The API answers 302 to a short-lived signed URL; our token must not follow it there.
      const res = await call(
        { action: `read the log of Actions job ${jobId}`, repo, need: 'actions:read' },
        () =>
          gh.rest.actions.downloadJobLogsForWorkflowRun({
            ...at(repo),
            job_id: jobId,
            request: { redirect: 'manual' },
          }),
      );
      const location = (res.headers as Record<string, string | undefined>).location;
      if (!location) {
        if (typeof res.data === 'string') return res.data.slice(-maxBytes);
        return undefined;
      }
      let url: URL;
      try {
        url = new URL(location);
      } catch {
        throw new AppError('forge_error', `GitHub sent an unreadable log address for job ${jobId}`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new AppError('forge_error', `GitHub sent a log address that is not http(s) for job ${jobId}`);
      const log = await doFetch(url, {
        redirect: 'follow',
        signal: AbortSignal.timeout(opts.requestTimeoutMs ?? 30_000),
      }).catch((err: unknown) => {
        throw new AppError(
          'forge_unavailable',
          `could not download the log of Actions job ${jobId}`,
          {},
          {
            cause: err,
          },
        );
      });
      // An expired or missing log is no reason to fail the whole fix prompt.
      if (log.status === 404 || log.status === 410) return undefined;
      if (!log.ok)
        throw new AppError(
          'forge_unavailable',
          `the log of Actions job ${jobId} could not be downloaded (HTTP ${log.status})`,
        );
      return readTail(log, maxBytes);
    },

    /** A check run of the bot's own read elsewhere (pull-feedback.ts): later reports update it. */
    ownRunSeen(repo: RepoRef, sha: string, id: number, nodeId?: string): void {
      remember(headKey(repo, sha), id, nodeId);
    },

    /** The bot's checks on `sha` were read whole and held no check run of its own. */
    ownRunAbsent(repo: RepoRef, sha: string): void {
      const key = headKey(repo, sha);
      if (ownRuns.has(key)) return;
      absent.add(key);
      if (absent.size > 2000) absent.delete(absent.keys().next().value!);
    },

    /** Whether the last whole read of `sha`'s checks held no check run of the bot's (none made since). */
    ownRunKnownAbsent(repo: RepoRef, sha: string): boolean {
      return absent.has(headKey(repo, sha));
    },

    /** The GraphQL node id of the bot's check run on `sha`, where this process knows it. */
    ownRunNode(repo: RepoRef, sha: string): string | undefined {
      return ownRuns.get(headKey(repo, sha))?.nodeId;
    },

    /** `report` went to the bot's check run on `sha` in another request (a merge's, pulls.ts). */
    ownRunReported(repo: RepoRef, sha: string, report: ProgressReport): void {
      sentOn(headKey(repo, sha), report.state);
    },

    /** Whether this process made or saw the bot's check run on `sha`. */
    ownRunKnown(repo: RepoRef, sha: string): boolean {
      return ownRuns.has(headKey(repo, sha));
    },

    /** The bot's check run made elsewhere (a PR's open, pulls.ts) with `report` on `sha`. */
    ownRunMade(repo: RepoRef, sha: string, id: number, report: ProgressReport, nodeId?: string): void {
      remember(headKey(repo, sha), id, nodeId);
      sentOn(headKey(repo, sha), report.state);
    },

    /** GitHub said the installation accepted new permissions: the bot's check runs are tried again. */
    checksGranted(): void {
      statusOnly.clear();
    },

    async reportProgress(
      repo: RepoRef,
      sha: string,
      report: ProgressReport,
      opts: { first?: boolean } = {},
    ): Promise<ReportedInstead | undefined> {
      const key = headKey(repo, sha);
      if (report.working === true && report.state === 'in_progress' && running.has(key)) return undefined;
      if (!opening.send(key, report)) return undefined;
      if (!statusOnly.has(repoKey(repo))) {
        try {
          await reportAsCheckRun(repo, sha, report, opts);
          return undefined;
        } catch (err) {
          // Any `checks` permission missing: the check run cannot be written (write includes read).
          if (missingPermissionOf(err)?.name !== 'checks') throw err;
          statusOnly.add(repoKey(repo));
        }
      }
      try {
        await reportAsStatus(repo, sha, report);
      } catch (err) {
        // No commit statuses either: the report is left out (the gate reads CI, not the bot's own report).
        if (missingPermissionOf(err)?.name !== 'statuses') throw err;
        return { ...asStatus, as: 'nothing' };
      }
      sentOn(key, report.state);
      return asStatus;
    },
  };
};
