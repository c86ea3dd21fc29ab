// Classifies how an attempt ended (seed 003). An environment failure — the model endpoint down,
// the binary missing, the disk full — is the host's fault: the run parks and nobody is charged.
import type { AttemptOutcome } from './types.ts';

const environmentPatterns: { pattern: RegExp; what: string }[] = [
  {
    pattern: /API Error[^\n]{0,80}(connect|refused|reset|timed? ?out|network|socket|overloaded|5\d\d)/i,
    what: 'model endpoint unreachable',
  },
  {
    pattern: /\bECONNREFUSED\b|\bECONNRESET\b|\bENOTFOUND\b|\bEAI_AGAIN\b|\bETIMEDOUT\b/,
    what: 'model endpoint unreachable',
  },
  {
    pattern:
      /\b(?:overloaded_error|Overloaded)\b|\b5(?:00|02|03|04|29)\b[^\n]{0,40}(?:overloaded|unavailable|bad gateway|server error)/i,
    what: 'model endpoint overloaded',
  },
  {
    pattern: /(?:spend|usage|credit) limit (?:reached|exceeded)|insufficient[_ ]quota/i,
    what: 'provider limit reached',
  },
  { pattern: /\bENOSPC\b|No space left on device/i, what: 'disk full' },
  {
    pattern: /blitz-runner: could not start|command not found|\bENOENT\b[^\n]{0,40}spawn/i,
    what: 'agent binary missing',
  },
];

/** The environment problem named in a log tail, if any. */
export const environmentProblem = (logTail: string): string | undefined =>
  environmentPatterns.find((p) => p.pattern.test(logTail))?.what;

export interface ExitFacts {
  exitCode: number | undefined;
  /** The branch moved on origin since the attempt started. */
  branchMoved: boolean;
  logTail: string;
  cancelled?: boolean;
  timedOut?: boolean;
  /** The wrapper could not start the command at all. */
  spawnError?: string;
}

export const lastLines = (text: string, n: number): string => text.split('\n').slice(-n).join('\n');

export const classifyExit = (f: ExitFacts): { outcome: AttemptOutcome; summary: string } => {
  if (f.cancelled) return { outcome: 'cancelled', summary: 'Cancelled.' };
  if (f.exitCode === 0 && f.branchMoved && !f.timedOut)
    return { outcome: 'solved', summary: 'Exited cleanly and pushed the branch.' };
  if (f.spawnError)
    return {
      outcome: 'environment_failure',
      summary: `Agent binary missing or not runnable (${f.spawnError}).`,
    };
  if (f.timedOut) return { outcome: 'unsolved', summary: 'Timed out and was stopped.' };
  const env = environmentProblem(lastLines(f.logTail, 60));
  if (env && (f.exitCode !== 0 || !f.branchMoved)) {
    return { outcome: 'environment_failure', summary: `Environment failure: ${env}.` };
  }
  const tail = lastLines(f.logTail.trim(), 15);
  if (f.exitCode !== 0)
    return { outcome: 'unsolved', summary: `Exited with code ${f.exitCode ?? 'unknown'}.\n${tail}` };
  return { outcome: 'unsolved', summary: `Exited cleanly but pushed nothing to the branch.\n${tail}` };
};
