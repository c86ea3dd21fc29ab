// Types of a review leg: what the caller passes in, what one reviewer attempt yields, and the
// outcome posted on the PR. A review is advisory: it never approves and never requests changes.
import type { BlitzConfig } from '../config/blitz-config.ts';
import type { Tool } from '../plan/routing.ts';

/** A roster entry as the operator file gives it (custom entries carry their argv template). */
export type ReviewRosterEntry = BlitzConfig['roster'][number];

/** Who wrote the change: the reviewer should differ in tool and provider where the roster allows. */
export interface ReviewAuthor {
  name: string;
  tool: Tool;
  provider?: string;
}

/**
 * `clean | minor | blocking`: the reviewer's own verdict line. `unclear`: it answered without one.
 * `nothing_to_review`: the diff was empty. `no_review`: every reviewer failed.
 */
export type ReviewVerdict = 'clean' | 'minor' | 'blocking' | 'unclear' | 'nothing_to_review' | 'no_review';

export const modelVerdicts = ['clean', 'minor', 'blocking'] as const;
export type ModelVerdict = (typeof modelVerdicts)[number];

/**
 * One reviewer's answer, or why it gave none (a fixed phrase: never stderr, never a URL); `missing`: its
 * CLI is not installed on this host, so it could not start at all.
 */
export type ReviewerAttempt = { ok: true; text: string } | { ok: false; reason: string; missing?: true };

export interface ReviewResult {
  verdict: ReviewVerdict;
  /** The body posted (edited in place on a re-run). */
  comment: string;
  /** The entry whose review was posted; undefined when none was produced or there was nothing to review. */
  reviewer?: string;
  /** One line per reviewer that failed before the posted one, e.g. `slow timed out after 120 s`. */
  fellBack: string[];
  /** `no_review` because no reviewer could start on this host (none installed, or none in the roster). */
  noneAvailable?: true;
}
