// The GitHub App side of `serve`: Probot (webhook verification with WEBHOOK_SECRET) and the App's own
// login, which loop prevention needs: `<slug>[bot]`, asked of GitHub (`GET /app`) with the App's own
// credentials. BOT_LOGIN is only the answer when GitHub cannot be asked; without either the bot does not
// start (with an empty login it would obey its own comments).
import type { Probot } from 'probot';
import { z } from 'zod';
import type { Env } from '../config/env.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';

export interface GithubApp {
  verify: (payload: string, signature: string) => Promise<boolean>;
  botLogin: string;
}

const askBotLogin = async (probot: Probot, fallback: string | undefined, logger: Logger): Promise<string> => {
  try {
    const octokit = await probot.auth();
    const { data } = await octokit.request('GET /app');
    const asked = `${z.object({ slug: z.string().min(1) }).parse(data).slug}[bot]`;
    if (fallback && fallback.toLowerCase() !== asked.toLowerCase())
      logger.warn(
        { configured: fallback, asked },
        'BOT_LOGIN differs from the App GitHub names; using the App',
      );
    return asked;
  } catch (err) {
    if (fallback) {
      logger.warn({ err }, 'could not ask GitHub for the App slug; using BOT_LOGIN');
      return fallback;
    }
    throw new AppError(
      'config_invalid',
      'Could not learn the GitHub App login (GET /app failed) and BOT_LOGIN is not set: the bot would not know its own comments, so it does not start.',
      { cause: err instanceof Error ? err.message : String(err) },
    );
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
    botLogin: await askBotLogin(probot, env.BOT_LOGIN, logger),
  };
};
