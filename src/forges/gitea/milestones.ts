// Choosing a milestone from a query, as people type it in `/blitz`: a number (`3`, `#3`), a
// case-insensitive title substring, or nothing (the lowest-numbered open milestone that still has
// open issues). Pure; errors name what exists so a person can retype.
import { AppError } from '../../errors.ts';
import type { Milestone } from '../types.ts';

const names = (ms: Milestone[]): string => (ms.length ? ms.map((m) => m.title).join(', ') : 'none');

/** `all` holds open and closed milestones; a number may name a closed one, a title search only open ones. */
export const pickMilestone = (all: Milestone[], repoName: string, query?: string): Milestone => {
  const open = all.filter((m) => m.state === 'open').sort((a, b) => a.number - b.number);
  const q = query?.trim();
  if (!q) {
    const first = open.find((m) => m.openIssues > 0);
    if (!first) {
      throw new AppError(
        'not_found',
        `no open milestone with open issues in ${repoName}; open milestones: ${names(open)}`,
      );
    }
    return first;
  }
  const asNumber = /^#?(\d+)$/.exec(q);
  if (asNumber) {
    const hit = all.find((m) => m.number === Number(asNumber[1]));
    if (hit) return hit;
  }
  const needle = q.toLowerCase();
  const exact = open.filter((m) => m.title.toLowerCase() === needle);
  if (exact.length === 1) return exact[0]!;
  const matches = open.filter((m) => m.title.toLowerCase().includes(needle));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new AppError(
      'bad_request',
      `milestone "${q}" is ambiguous in ${repoName}: it matches ${names(matches)}`,
      {
        matches: matches.map((m) => m.number),
      },
    );
  }
  throw new AppError('not_found', `milestone ${q} not found in ${repoName}; open milestones: ${names(open)}`);
};
