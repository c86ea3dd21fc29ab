// The GitHub App side of `serve`: Probot (webhook verification with WEBHOOK_SECRET) and the App's own
// login, which loop prevention needs (`<slug>[bot]`, from BOT_LOGIN or asked of GitHub).
import type { Probot } from 'probot';
import { z } from 'zod';
import type { Env } from '../config/env.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';

export interface GithubApp {
  verify: (payload: string, signature: string) => Promise<boolean>;
  botLogin: string;
}

const askBotLogin = async (probot: Probot, logger: Logger): Promise<string> => {
  try {
    const octokit = await probot.auth();
    const { data } = await octokit.request('GET /app');
    return `${z.object({ slug: z.string() }).parse(data).slug}[bot]`;
  } catch (err) {
    logger.warn(
      { err },
      'could not read the GitHub App slug; set BOT_LOGIN so the bot ignores its own comments',
    );
    return '';
  }
};

export const startGithubApp = async (
  env: Env,
  baseUrl: string,
  logger: Logger,
): Promise<GithubApp | undefined> => {
  if (!env.github) return undefined;
  // Loaded only when GitHub is configured: Probot is the largest part of a cold start.
  const { Probot } = await import('probot');
  const probot = new Probot({
    appId: env.github.appId,
    privateKey: env.github.privateKey,
    secret: env.github.webhookSecret,
    baseUrl,
    log: logger.child({ name: 'probot' }),
  });
  // Probot 14 builds its webhooks (and their verify) asynchronously.
  await probot.ready();
  const webhooks = probot.webhooks;
  if (!webhooks) throw new AppError('internal', 'Probot did not set up its webhooks: cannot verify GitHub');
  return {
    verify: (payload, signature) => webhooks.verify(payload, signature),
    botLogin: env.BOT_LOGIN ?? (await askBotLogin(probot, logger)),
  };
};
