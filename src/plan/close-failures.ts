// A merged issue whose close keeps failing for a reason other than a permission (a 500, a partial
// mutation; a missing permission blocks the run instead) is tried again on each pass, as any failed
// action is; once it has failed a bounded number of times a person is told, once, and the dashboard
// holds the issue with why (plan/notices.ts), since the run cannot finish while it stays open.

/** Closes of one merged issue that failed, and the last failure's cause in words (from its code). */
export interface CloseFailures {
  count: number;
  cause: string;
}

/** Failed closes of one issue before a person is told. */
export const maxCloseFailures = 3;

/** The sentence a person is told, or undefined while the failures are under the bound. */
export const closeFailedSentence = (ref: string, f: CloseFailures | undefined): string | undefined =>
  f && f.count >= maxCloseFailures
    ? `${ref} is merged but could not be closed: ${f.cause}, ${f.count} times; it is tried again on each pass, or a person can close it`
    : undefined;
