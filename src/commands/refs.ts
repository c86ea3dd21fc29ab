// Reads one ticket reference: `#9`, `repo#9`, `owner/repo#9`, or an issue / pull request URL on any
// host (Gitea may live under a path prefix, so only the last four path segments are read).
import { inlineCode } from './quote.ts';
import { ownerPattern, repoPattern, type TicketRef } from './schema.ts';

export type RefKind = 'issue' | 'pull';

export type RefResult =
  | { ok: true; ref: TicketRef; kind: RefKind | 'either' }
  | { ok: false; error: string }
  | { ok: false; notARef: true };

const SHORT_REF = /^(?:(?:([^/#\s]+)\/)?([^/#\s]+))?#(\d+)$/;
const MAX_NUMBER = 2_147_483_647;

const readNumber = (
  digits: string,
  token: string,
): { ok: true; n: number } | { ok: false; error: string } => {
  const n = Number(digits);
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_NUMBER) {
    return { ok: false, error: `${inlineCode(token)} is not a valid issue number` };
  }
  return { ok: true, n };
};

const readUrl = (token: string): RefResult => {
  let url: URL;
  try {
    url = new URL(token);
  } catch {
    return { ok: false, error: `${inlineCode(token)} is not a valid URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, error: `${inlineCode(token)} is not an http(s) link` };
  }
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const [owner, repo, section, digits] = segments.slice(-4);
  const kind: RefKind | null =
    section === 'issues' ? 'issue' : section === 'pull' || section === 'pulls' ? 'pull' : null;
  if (segments.length < 4 || !kind || !owner || !repo || !digits || !/^\d+$/.test(digits)) {
    return { ok: false, error: `${inlineCode(token)} is not a link to an issue or pull request` };
  }
  if (!ownerPattern.test(owner) || !repoPattern.test(repo)) {
    return { ok: false, error: `${inlineCode(token)} does not name a repository I can read` };
  }
  const n = readNumber(digits, token);
  if (!n.ok) return n;
  return { ok: true, ref: { owner, repo, number: n.n, host: url.host }, kind };
};

/** A token that is plainly not trying to be a ref (a word, a label) yields `notARef`. */
export const parseRef = (token: string): RefResult => {
  if (/^https?:\/\//i.test(token)) return readUrl(token);
  const m = SHORT_REF.exec(token);
  if (!m) {
    if (token.includes('#')) return { ok: false, error: `${inlineCode(token)} is not a ticket reference` };
    return { ok: false, notARef: true };
  }
  const [, owner, repo, digits] = m;
  if (owner !== undefined && !ownerPattern.test(owner)) {
    return { ok: false, error: `${inlineCode(token)}: ${inlineCode(owner)} is not a valid owner name` };
  }
  if (repo !== undefined && !repoPattern.test(repo)) {
    return { ok: false, error: `${inlineCode(token)}: ${inlineCode(repo)} is not a valid repository name` };
  }
  const n = readNumber(digits!, token);
  if (!n.ok) return n;
  const ref: TicketRef = { number: n.n };
  if (owner !== undefined) ref.owner = owner;
  if (repo !== undefined) ref.repo = repo;
  return { ok: true, ref, kind: 'either' };
};

/** Two refs name the same ticket when owner, repo and number match (case-insensitively for names). */
export const refKey = (ref: TicketRef): string =>
  `${ref.owner?.toLowerCase() ?? ''}/${ref.repo?.toLowerCase() ?? ''}#${ref.number}`;
