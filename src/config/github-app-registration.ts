// Finishing the GitHub App registration (the manifest flow Probot offers): exchange GitHub's one-time
// code for the new app's id, private key and webhook secret, and write them to `.env` for the next
// start. Secrets go to the file only, never to a log.
import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import type { Logger } from '../observability/logger.ts';
import { octokitLog } from '../observability/octokit-log.ts';
import { updateDotenvFile } from './dotenv.ts';

const conversion = z.object({
  id: z.number(),
  slug: z.string().optional(),
  html_url: z.string().url(),
  pem: z.string(),
  webhook_secret: z.string().nullable(),
  client_id: z.string(),
  client_secret: z.string(),
});

export const completeAppRegistration = async (opts: {
  code: string;
  /** API root: https://api.github.com or a GHE `/api/v3`. */
  baseUrl: string;
  envFile?: string;
  fetch?: typeof fetch;
  logger: Logger;
}): Promise<string> => {
  const octokit = new Octokit({
    baseUrl: opts.baseUrl,
    log: octokitLog(opts.logger),
    ...(opts.fetch ? { request: { fetch: opts.fetch } } : {}),
  });
  const response = await octokit.request('POST /app-manifests/{code}/conversions', { code: opts.code });
  const app = conversion.parse(response.data);
  updateDotenvFile(opts.envFile ?? '.env', {
    APP_ID: String(app.id),
    PRIVATE_KEY: app.pem,
    WEBHOOK_SECRET: app.webhook_secret ?? '',
    GITHUB_CLIENT_ID: app.client_id,
    GITHUB_CLIENT_SECRET: app.client_secret,
    ...(app.slug ? { BOT_LOGIN: `${app.slug}[bot]` } : {}),
  });
  return app.html_url;
};

/** Why finishing a registration failed, for the person who clicked through GitHub: words and a next step. */
export interface RegistrationFailure {
  kind: 'unreachable' | 'code_refused' | 'github_error' | 'unexpected_answer' | 'not_written';
  /** 502: GitHub could not be used; 500: this machine could not keep the result. */
  status: 500 | 502;
  why: string;
  next: string;
}

const codeOf = (err: unknown): string | undefined => {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
};

const again = 'Then start again at /probot: a code works once and for one hour.';

/** Sorts a failed `completeAppRegistration` by what it threw (an HTTP status, a system error code, zod). */
export const registrationFailure = (err: unknown): RegistrationFailure => {
  if (err instanceof z.ZodError)
    return {
      kind: 'unexpected_answer',
      status: 502,
      why: 'GitHub answered the code exchange with something other than the new app’s credentials.',
      next: `Check that GHE_HOST names the GitHub this app was registered on. ${again}`,
    };
  const status =
    typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : 0;
  const answered = (err as { response?: unknown })?.response !== undefined;
  const code = codeOf(err);
  if (answered && status >= 400 && status < 500)
    return {
      kind: 'code_refused',
      status: 502,
      why: `GitHub refused the registration code (HTTP ${status}): it was used already, is more than an hour old, or was made on another GitHub than this bot talks to.`,
      next: `If the app was created anyway, delete it in GitHub's developer settings. ${again}`,
    };
  if (answered)
    return {
      kind: 'github_error',
      status: 502,
      why: `GitHub answered the code exchange with HTTP ${status}.`,
      next: `Wait a minute and reload this page (the code stays valid for an hour), or ${again.toLowerCase()}`,
    };
  if (code && /^E[A-Z]+$/.test(code) && (err as { syscall?: unknown })?.syscall !== undefined)
    return {
      kind: 'not_written',
      status: 500,
      why: `The app was registered on GitHub, but its credentials could not be written to .env (${code}).`,
      next: 'Make .env (BLITZ_ENV_FILE, default ./.env) and its directory writable by the bot, then delete the new app in GitHub’s developer settings and register again (its private key was shown only to this bot).',
    };
  return {
    kind: 'unreachable',
    status: 502,
    why: `This bot could not reach GitHub's API to exchange the code${code ? ` (${code})` : ''}.`,
    next: `Check this machine's DNS and outbound HTTPS to api.github.com (or GHE_HOST's /api/v3), then reload this page while the code is still valid (one hour).`,
  };
};
