// Octokit's `log` option pointed at our logger. Unset, octokit (and @octokit/auth-app, which takes the
// client's log) writes plain-text warnings and errors with console.warn / console.error, which land in
// the middle of the JSON log stream; through here each is one structured entry with the text as `detail`.
import type { Logger } from './logger.ts';

export interface OctokitLog {
  debug: (message: string, ...rest: unknown[]) => void;
  info: (message: string, ...rest: unknown[]) => void;
  warn: (message: string, ...rest: unknown[]) => void;
  error: (message: string, ...rest: unknown[]) => void;
}

const detailOf = (message: unknown): string =>
  message instanceof Error ? message.message : typeof message === 'string' ? message : String(message);

export const octokitLog = (logger: Logger): OctokitLog => ({
  debug: (message) => logger.debug({ detail: detailOf(message) }, 'octokit'),
  info: (message) => logger.debug({ detail: detailOf(message) }, 'octokit'),
  warn: (message) => logger.warn({ detail: detailOf(message) }, 'octokit warning'),
  error: (message) => logger.error({ detail: detailOf(message) }, 'octokit error'),
});
