// The one review comment on a PR: the hidden marker, the verdict line first, the findings, then who
// reviewed (and who failed before) and whether the diff was whole. Pure: the caller posts it.
import type { BoundedDiff } from '../forges/types.ts';
import { partialNotice } from './prompt.ts';
import { sanitizeModelText } from './sanitize.ts';
import type { ReviewRosterEntry, ReviewVerdict } from './types.ts';

/** The sticky-comment marker name; the forge writes it as `<!-- blitz-review -->`. */
export const reviewMarker = 'blitz-review';
export const reviewMarkerTag = `<!-- ${reviewMarker} -->`;

/** Room left for the findings inside a forge comment (GitHub's limit is 65,536 characters). */
export const maxFindingsChars = 20_000;

const verdictWords: Record<ReviewVerdict, string> = {
  clean: '**Review verdict: clean** (no findings worth changing)',
  minor: '**Review verdict: minor** (worth fixing; nothing blocking)',
  blocking: '**Review verdict: blocking** (fix before merging)',
  unclear: '**Review verdict: unclear** (the reviewer gave no VERDICT line; its answer is below as written)',
  nothing_to_review: '**Review: nothing to review** (the pull request has an empty diff)',
  no_review: '**Review: no review could be produced**',
};

/** Roster names and models come from the operator, but still must not break out of a code span. */
const code = (s: string): string => `\`${s.replace(/[`\r\n]/g, '')}\``;

export const describeReviewer = (e: Pick<ReviewRosterEntry, 'name' | 'tool' | 'model'>): string =>
  `${code(e.name)} (${e.tool}${e.model ? `, model ${code(e.model)}` : ''})`;

export interface ReviewerFailure {
  entry: string;
  /** A fixed phrase such as `timed out after 120 s`. */
  reason: string;
  /** Its CLI is not installed on this host. */
  missing?: true;
}

export const describeFailure = (f: ReviewerFailure): string => `${f.entry} ${f.reason}`;

export interface ReviewCommentInput {
  verdict: ReviewVerdict;
  /** The reviewer's answer without its verdict line, unsanitised. */
  findings?: string;
  reviewer?: Pick<ReviewRosterEntry, 'name' | 'tool' | 'model'>;
  /** Every reviewer that failed before the posted one (or all of them), in order. */
  failures: ReviewerFailure[];
  diff?: BoundedDiff;
  /** ISO time of this review, so an edited comment shows it was re-run. */
  at: string;
}

const advisory = 'Advisory comment from a second model: not an approval; a person decides the merge.';

export const renderReviewComment = (c: ReviewCommentInput): string => {
  const parts = [reviewMarkerTag, verdictWords[c.verdict], ''];
  if (c.verdict === 'nothing_to_review') {
    parts.push('The diff between the branches is empty, so no reviewer was run.');
  } else if (c.verdict === 'no_review') {
    parts.push(
      `Every reviewer failed: ${c.failures.map((f) => `${code(f.entry)} ${f.reason}.`).join(' ') || 'the roster has no usable reviewer.'}`,
      'Nothing here says the change is fine: review it by hand or run `/review` again.',
    );
  } else {
    const findings = sanitizeModelText(c.findings ?? '', { maxChars: maxFindingsChars });
    parts.push(findings || '_No findings._');
  }
  parts.push('', '---');
  const notes: string[] = [];
  if (c.reviewer) {
    notes.push(`Reviewed by ${describeReviewer(c.reviewer)} at ${c.at}.`);
    if (c.failures.length > 0)
      notes.push(
        `${c.failures.map((f) => `${code(f.entry)} ${f.reason}`).join('; ')}; reviewed by ${code(c.reviewer.name)}.`,
      );
  } else notes.push(`Checked at ${c.at}.`);
  if (c.diff?.truncated) notes.push(`⚠️ Partial review: ${partialNotice(c.diff)}; the rest was not seen.`);
  notes.push(advisory);
  parts.push(notes.join('\n\n'));
  return parts.join('\n');
};
