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
