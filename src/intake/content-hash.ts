// What an approval covers: an issue's title and body as they were when a writer approved it. The hash
// is taken from the label webhook's issue (the text the writer saw) and compared with the text the
// bot reads before each dispatch; any difference lapses the approval.
import { createHash } from 'node:crypto';

/** sha256 of the title and the body, line endings and trailing space normalised. */
export const issueContentHash = (title: string, body: string | null | undefined): string =>
  createHash('sha256')
    .update(JSON.stringify([title.trim(), (body ?? '').replace(/\r\n?/g, '\n').trimEnd()]))
    .digest('hex');
