// The result of one `blitz-bot doctor` check, and how the list is shown: one line of plain words per
// check on the terminal, or JSON. A `fail` makes the exit code non-zero; a `warn` does not.
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  /** What is checked: `roster sonnet`, `git`, `workspace`, `github`, `store`… */
  subject: string;
  status: CheckStatus;
  /** Plain words: what was found, and for a problem what to do. */
  detail: string;
}

export const ok = (subject: string, detail: string): CheckResult => ({ subject, status: 'ok', detail });
export const warn = (subject: string, detail: string): CheckResult => ({ subject, status: 'warn', detail });
export const fail = (subject: string, detail: string): CheckResult => ({ subject, status: 'fail', detail });

const label: Record<CheckStatus, string> = { ok: 'ok     ', warn: 'warning', fail: 'PROBLEM' };

export const formatChecks = (results: readonly CheckResult[]): string => {
  const lines = results.map((r) => `${label[r.status]}  ${r.subject}: ${r.detail}`);
  const problems = results.filter((r) => r.status === 'fail').length;
  const warnings = results.filter((r) => r.status === 'warn').length;
  lines.push(
    problems
      ? `${problems} problem(s), ${warnings} warning(s).`
      : `No problems${warnings ? `, ${warnings} warning(s)` : ''}.`,
  );
  return lines.join('\n');
};

export const exitCodeOf = (results: readonly CheckResult[]): number =>
  results.some((r) => r.status === 'fail') ? 1 : 0;

/** An error's message for a check line (never a stack; AppErrors already speak plainly). */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
