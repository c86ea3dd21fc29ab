// Branch names derived from issue titles. Titles are hostile input: the result is ASCII, a valid
// git ref component by construction, and short enough for every forge.
import { AppError } from '../errors.ts';

const MAX_BRANCH = 60;

/** Lowercase ASCII words joined by `-`: accents folded, everything else dropped. */
export const slugify = (text: string, max = 40): string => {
  const ascii = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return ascii.slice(0, max).replace(/-+$/g, '');
};

/** Checks the rules `git check-ref-format` enforces, plus ours (ASCII, length). */
export const isSafeBranchName = (name: string): boolean =>
  name.length > 0 &&
  name.length <= MAX_BRANCH &&
  /^[A-Za-z0-9._/-]+$/.test(name) &&
  !name.startsWith('-') &&
  !name.startsWith('/') &&
  !name.endsWith('/') &&
  !name.endsWith('.') &&
  !name.includes('..') &&
  !name.includes('//') &&
  !name.includes('@{') &&
  name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));

const finish = (name: string): string => {
  let out = name.slice(0, MAX_BRANCH).replace(/[-/.]+$/g, '');
  while (out.endsWith('.lock')) out = out.slice(0, -5).replace(/[-/.]+$/g, '');
  if (!isSafeBranchName(out))
    throw new AppError('bad_request', `Cannot make a safe branch name from "${name}".`);
  return out;
};

/** Blitz worker branch: `<runSlug>/<n>-<title-slug>` (seed 000: not under `blitz/` itself). */
export const blitzBranchName = (runSlug: string, issueNumber: number, title: string): string => {
  const run = slugify(runSlug, 20) || 'run';
  const prefix = `${run}/${issueNumber}`;
  const room = MAX_BRANCH - prefix.length - 1;
  const slug = room > 0 ? slugify(title, room) : '';
  return finish(slug ? `${prefix}-${slug}` : prefix);
};

/** Fleet ticket branch: `ticket/<n>-headless`. */
export const fleetBranchName = (issueNumber: number): string => finish(`ticket/${issueNumber}-headless`);

/** The branch an attempt job works on: what the runner checks out and the bot opens a PR from. */
export const attemptBranch = (job: {
  branchStyle: 'blitz' | 'fleet';
  runSlug: string;
  issue: { number: number };
  title: string;
}): string =>
  job.branchStyle === 'fleet'
    ? fleetBranchName(job.issue.number)
    : blitzBranchName(job.runSlug, job.issue.number, job.title);

/** A directory name for a worktree: one path segment, no dots to climb with. */
export const worktreeDirName = (branch: string): string =>
  branch.replace(/[^A-Za-z0-9-]+/g, '-').slice(0, 80);
