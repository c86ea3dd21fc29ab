// Classifies how an attempt ended (seed 003). An environment failure — the model endpoint down,
// the binary missing, the disk full — is the host's fault: the run parks and nobody is charged.
import { z } from 'zod';
import { causeWords, type EnvironmentCause } from '../plan/environment-park.ts';
import { limitResetFrom } from './limit-reset.ts';
import type { AttemptOutcome, FailureCause } from './types.ts';

/** Spend and plan limits as claude, codex and the provider APIs word them. */
const limitPattern =
  /(?:spend|usage|credit) limit (?:reached|exceeded)|insufficient[_ ]quota|hit your (?:usage |session |weekly |opus )?limit|\b\d+-hour limit reached|weekly limit reached|credit balance is too low|exceeded your current quota|quota exceeded/i;

/**
 * A full disk or a spent quota, as the kernel names it (ENOSPC, EDQUOT) and as tools word it: git's
 * `index.lock write error. Out of diskspace` and `unable to write … No space left on device`.
 */
const diskFullPattern =
  /\bENOSPC\b|No space left on device|Out of diskspace|index\.lock' write error|\bEDQUOT\b|Disk quota exceeded/i;

/** True when an error's or a log's words say the disk (or the quota) is full. */
export const isDiskFull = (text: string): boolean => diskFullPattern.test(text);

/** Where a full disk was met: the host and a path on the filesystem that is full. */
export interface DiskPlace {
  host: string;
  path: string;
}

/** An attempt's summary for a full disk: an environment failure naming the host and the path. */
export const diskFullSummary = (at: DiskPlace): string =>
  `Environment failure: disk full on ${at.host} at ${at.path}.`;

/** What a worker's log says failed, as a cause; its words for people are `causeWords[cause]`. */
const environmentPatterns: { pattern: RegExp; cause: EnvironmentCause }[] = [
  {
    pattern: /API Error[^\n]{0,80}(connect|refused|reset|timed? ?out|network|socket|overloaded|5\d\d)/i,
    cause: 'endpoint_unreachable',
  },
  {
    pattern: /\bECONNREFUSED\b|\bECONNRESET\b|\bENOTFOUND\b|\bEAI_AGAIN\b|\bETIMEDOUT\b/,
    cause: 'endpoint_unreachable',
  },
  // opencode's APIError; codex's reconnect loop; gemini's and qwen's retries of a failed fetch.
  {
    pattern:
      /Cannot connect to API|Reconnecting\.\.\. waiting for network|Retrying with backoff[^\n]{0,120}fetch failed|\bfetch failed\b[^\n]{0,40}(?:sending request|ECONNREFUSED|other side closed)/,
    cause: 'endpoint_unreachable',
  },
  {
    pattern:
      /\b(?:overloaded_error|Overloaded)\b|\b5(?:00|02|03|04|29)\b[^\n]{0,40}(?:overloaded|unavailable|bad gateway|server error)/i,
    cause: 'endpoint_overloaded',
  },
  { pattern: limitPattern, cause: 'provider_limit' },
  { pattern: diskFullPattern, cause: 'disk_full' },
  {
    pattern: /blitz-runner: could not start|\bENOENT\b[^\n]{0,40}spawn/i,
    cause: 'tool_missing',
  },
];

/** The kind of environment problem a log tail names, if any. */
export const environmentCause = (text: string): EnvironmentCause | undefined =>
  environmentPatterns.find((p) => p.pattern.test(text))?.cause;

export interface ExitFacts {
  exitCode: number | undefined;
  /** The branch moved on origin since the attempt started. */
  branchMoved: boolean;
  logTail: string;
  cancelled?: boolean;
  timedOut?: boolean;
  /** The wrapper could not start the command at all. */
  spawnError?: string;
  /** Given, a provider limit's reset time printed by the tool is read (relative to now) and reported. */
  now?: Date;
  /** Zone of clock times the tool prints without one (codex: the host's local time). */
  timeZone?: string /** Where the worker ran: a full disk's summary names it. */;
  disk?: DiskPlace;
}

export interface ExitClass {
  outcome: AttemptOutcome;
  /** Words for people. */
  summary: string;
  /** Why an environment failure ended it (with a limit's reset time, as the tool said): what the planner matches on. */
  cause?: FailureCause;
}

export const lastLines = (text: string, n: number): string => text.split('\n').slice(-n).join('\n');

export const classifyExit = (f: ExitFacts): ExitClass => {
  if (f.cancelled) return { outcome: 'cancelled', summary: 'Cancelled.' };
  if (f.exitCode === 0 && f.branchMoved && !f.timedOut)
    return { outcome: 'solved', summary: 'Exited cleanly and pushed the branch.' };
  if (f.spawnError)
    return {
      outcome: 'environment_failure',
      summary: `Agent binary missing or not runnable (${f.spawnError}).`,
      cause: { kind: 'missing_tool' },
    };
  if (f.timedOut) return { outcome: 'unsolved', summary: 'Timed out and was stopped.' };
  const cause = environmentCause(lastLines(f.logTail, 60));
  if (cause && (f.exitCode !== 0 || !f.branchMoved)) {
    if (cause === 'disk_full' && f.disk)
      return {
        outcome: 'environment_failure',
        summary: diskFullSummary(f.disk),
        cause: { kind: 'environment', cause },
      };
    const reset =
      cause === 'provider_limit' && f.now
        ? limitResetFrom(f.logTail, { now: f.now, ...(f.timeZone ? { timeZone: f.timeZone } : {}) })
        : undefined;
    const resetAt = reset?.resetAt.toISOString();
    // A person reads the reset time in the summary too; the park takes it from the cause.
    return {
      outcome: 'environment_failure',
      summary: `Environment failure: ${causeWords[cause]}${resetAt ? ` (resets at ${resetAt})` : ''}.`,
      cause: { kind: 'environment', cause, ...(resetAt ? { resetAt } : {}) },
    };
  }
  const tail = lastLines(f.logTail.trim(), 15);
  if (f.exitCode !== 0)
    return { outcome: 'unsolved', summary: `Exited with code ${f.exitCode ?? 'unknown'}.\n${tail}` };
  return { outcome: 'unsolved', summary: `Exited cleanly but pushed nothing to the branch.\n${tail}` };
};

const retryEvent = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  attempt: z.number(),
  error_status: z.number().nullable().optional(),
});
const errorEvent = z.looseObject({ type: z.enum(['error', 'turn.failed']) });

/** How many failed calls in a row, with nothing else in between, count as the endpoint being down. */
export const LIVE_RETRIES_DOWN = 3;
/** claude numbers its retries (0.6 s, 1.2 s, 2.2 s, 4.4 s…): the fifth comes after about 9 s down. */
export const CLAUDE_RETRY_DOWN = 5;

const opencodeDown = /^timestamp=\S+ level=ERROR .*(?:Cannot connect to API|ECONNREFUSED)/;
/** gemini's line per failed call ("Attempt 2 failed. Retrying with backoff... … fetch failed"), then a stack. */
const geminiRetry = /^Attempt \d+ failed\b.*Retrying with backoff/;
const geminiDown = /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|\b5\d\d\b/;
/**
 * What follows gemini's retry line: the error's stack and its fields, printed by Node's inspect
 * (`    at …`, `  status: 429`, `}`).
 */
const stackFrame = /^at \S|^\[cause\]|^}$|^\{$|^(?:status|code): \S{1,40}$/;
/**
 * qwen's line (stderr) per retry of its turn, after its own quiet retries of the call: "Retrying in
 * 60s (attempt 1/10): [API Error: 429 You exceeded your current quota…]"; between them a `system`
 * `retry` event (stdout).
 */
const qwenRetry = /^Retrying in \d+s \(attempt \d+\/\d+\): \[API Error: /;
const qwenDown = /fetch failed|Connection error|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|\b5\d\d\b/;
/** Notes the CLIs print between their retries: qwen's "Retrying provider attempt", gemini's `[STARTUP]`. */
const retryNote = /^Retrying provider attempt\b|^\[STARTUP\] /;
const systemRetry = z.looseObject({ type: z.literal('system'), subtype: z.literal('retry') });

/**
 * The kind of environment problem a still-running worker is stuck on, read from the end of its log: the
 * CLIs retry an unreachable endpoint for minutes (codex forever) while printing one line per try.
 * Only the CLI's own top-level events count (claude `api_retry`, codex `error`, opencode's
 * `--print-logs` error lines, gemini's "Attempt N failed. Retrying with backoff…" lines and their
 * stacks, qwen's "Retrying in Ns (attempt N/M): [API Error: …]" lines), and only when they are the
 * last thing in the log: a worker that got an answer after a retry is working again. A spend limit
 * ends the attempt at once.
 */
export const liveEnvironmentCause = (logTail: string): EnvironmentCause | undefined => {
  const lines = logTail.split('\n').filter((l) => l.trim());
  let codexRetries = 0;
  let opencodeRetries = 0;
  let geminiRetries = 0;
  let qwenRetries = 0;
  let claudeAttempt = 0;
  let claudeStatus: number | null | undefined;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (/^timestamp=\S+ level=ERROR /.test(line) && limitPattern.test(line)) return 'provider_limit';
    if (opencodeDown.test(line)) {
      opencodeRetries++;
      continue;
    }
    if (line.startsWith('timestamp=') && / level=(?:WARN|INFO|DEBUG) /.test(line)) continue;
    if (geminiRetry.test(line)) {
      if (limitPattern.test(line)) return 'provider_limit';
      if (!geminiDown.test(line)) break;
      geminiRetries++;
      continue;
    }
    if (qwenRetry.test(line)) {
      if (limitPattern.test(line)) return 'provider_limit';
      if (!qwenDown.test(line)) break;
      qwenRetries++;
      continue;
    }
    if (stackFrame.test(line) || retryNote.test(line)) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      break;
    }
    if (systemRetry.safeParse(ev).success) continue;
    const retry = retryEvent.safeParse(ev);
    if (retry.success) {
      if (retry.data.error_status === 429 && limitPattern.test(line)) return 'provider_limit';
      if (retry.data.attempt > claudeAttempt) {
        claudeAttempt = retry.data.attempt;
        claudeStatus = retry.data.error_status;
      }
      continue;
    }
    const err = errorEvent.safeParse(ev);
    if (!err.success) break;
    if (limitPattern.test(line)) return 'provider_limit';
    if (/Reconnecting\.\.\./.test(line)) {
      codexRetries++;
      continue;
    }
    break;
  }
  if (claudeAttempt >= CLAUDE_RETRY_DOWN) {
    if (claudeStatus === 429) return 'provider_limit';
    if (claudeStatus === 529) return 'endpoint_overloaded';
    return 'endpoint_unreachable';
  }
  if (
    codexRetries >= LIVE_RETRIES_DOWN ||
    opencodeRetries >= LIVE_RETRIES_DOWN ||
    geminiRetries >= LIVE_RETRIES_DOWN ||
    qwenRetries >= LIVE_RETRIES_DOWN
  )
    return 'endpoint_unreachable';
  return undefined;
};
