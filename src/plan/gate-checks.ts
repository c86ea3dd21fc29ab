// One readiness check at a time (seed 000 §4): what a build or smoke record means and how it reads.
// Kept apart from plan/readiness.ts, which orders the checks and the ship and decides the run's next
// step from them, because the dashboard (dashboard/view.ts) words the same checks
// without deciding anything. A check counts only when it ran green on the integration branch's
// current head. A check with no command configured is "not
// configured", never green; it does not hold the gate (there is nothing to run), and every line and
// notice says so. A red smoke files a finding and runs another pass, until the allowance is spent.

/** One check as the run recorded it. */
export interface GateCheck {
  status: 'none' | 'running' | 'passed' | 'failed';
  /** False when the repo config has no command for it. */
  configured: boolean;
  /** The integration branch commit it ran on (absent for a check recorded before heads were kept). */
  sha?: string;
}

/** Red smoke passes before the run stops BLOCKED (runner.maxSmokeFailures). */
export const defaultMaxSmokeFailures = 3;

const short = (sha: string): string => sha.slice(0, 7);

/** The check's line for the dashboard, the status page and notices; never "green" when not configured. */
export const gateLine = (name: 'build' | 'smoke', c: GateCheck, head?: string): string => {
  if (!c.configured) return `${name}: not configured (no \`${name}:\` command in blitz.yml)`;
  switch (c.status) {
    case 'none':
      return `${name}: not run yet`;
    case 'running':
      return `${name}: running`;
    case 'failed':
      return `${name}: red${c.sha ? ` on ${short(c.sha)}` : ''}`;
    case 'passed':
      if (head && c.sha && c.sha !== head)
        return `${name}: green on ${short(c.sha)}, not on the current head ${short(head)}; it runs again`;
      return `${name}: green${c.sha ? ` on ${short(c.sha)}` : ''}`;
  }
};

/**
 * Whether a passed check still counts at `head`: not when it ran on another commit. Unknown heads
 * (an older record, or no head read) count, so a run from before this check does not run it again.
 */
export const greenAt = (c: GateCheck, head: string | undefined): boolean =>
  c.status === 'passed' && (!c.configured || head === undefined || c.sha === undefined || c.sha === head);

/** How a ship went out, as recorded: `url` only when something answered there (a preview, a health check). */
export interface ShipClaim {
  path: 'deploy' | 'local';
  /** The address that answered; never a link to the milestone PR standing in for it. */
  url?: string;
  /** The deploy's address when nothing polled it (no `ship.healthUrl`): named, never as live. */
  unchecked?: string;
}

/** Inline code in Markdown, plain text elsewhere (a check title, a phone notification). */
const codeOf = (markdown: boolean) => (s: string) => (markdown ? `\`${s}\`` : s);

/** One check as it ran: "build ✓ at `abc1234`", "smoke not configured", "build ✗ at `abc1234`". */
export const checkClaim = (name: 'build' | 'smoke', c: GateCheck, markdown = false): string => {
  if (!c.configured) return `${name} not configured`;
  const at = c.sha ? ` at ${codeOf(markdown)(short(c.sha))}` : '';
  switch (c.status) {
    case 'none':
      return `${name} not run`;
    case 'running':
      return `${name} running${at}`;
    case 'failed':
      return `${name} ✗${at}`;
    case 'passed':
      return `${name} ✓${at}`;
  }
};

/** What the ship left running: "preview at http://…", "no preview", "deployed, answering at https://…". */
export const shipClaim = (ship: ShipClaim): string => {
  if (ship.path === 'local') return ship.url ? `preview at ${ship.url}` : 'no preview';
  if (ship.url) return `deployed, answering at ${ship.url}`;
  return `deployed${ship.unchecked ? ` to ${ship.unchecked}` : ''}, not checked live (no ship.healthUrl)`;
};

/**
 * Exactly what ran and on which commit, from the run's record: "build ✓ at `abc1234`, smoke not
 * configured, no preview". A check with no command never reads as green; one that did not run says so.
 */
export const checksClaim = (
  record: { build: GateCheck; smoke: GateCheck; ship?: ShipClaim },
  markdown = false,
): string =>
  [
    checkClaim('build', record.build, markdown),
    checkClaim('smoke', record.smoke, markdown),
    ...(record.ship ? [shipClaim(record.ship)] : []),
  ].join(', ');

/** Whether anything verified the work: a configured check ran green, and none configured is red or unrun. */
export const verifiedBy = (build: GateCheck, smoke: GateCheck): boolean => {
  const configured = [build, smoke].filter((c) => c.configured);
  return configured.length > 0 && configured.every((c) => c.status === 'passed');
};

export type SmokeStep =
  /** Run the smoke check (again) on the current head. */
  | { type: 'run' }
  | { type: 'wait' }
  | { type: 'green' }
  /** File the red smoke as a finding in the milestone and run another pass. */
  | { type: 'finding'; pass: number }
  | { type: 'blocked'; reason: string };

/**
 * The smoke step once every issue is closed and the build is green at `head` (the build's commit when
 * the head is not read): run it, wait, go on, or after a red one file a finding, until `max` red passes.
 */
export const smokeStep = (
  smoke: GateCheck & { failures: number },
  head: string | undefined,
  max: number = defaultMaxSmokeFailures,
): SmokeStep => {
  if (!smoke.configured) return { type: 'green' };
  if (smoke.status === 'running') return { type: 'wait' };
  if (smoke.status === 'failed') {
    if (smoke.failures >= max)
      return {
        type: 'blocked',
        reason: `the smoke check was red ${smoke.failures} times in a row on the integration branch`,
      };
    return { type: 'finding', pass: smoke.failures };
  }
  if (smoke.status === 'passed' && greenAt(smoke, head)) return { type: 'green' };
  return { type: 'run' };
};
