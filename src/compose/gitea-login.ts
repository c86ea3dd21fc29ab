// The Gitea bot account's login, learnt at start from GITEA_TOKEN (`GET /user`): what the bot ignores
// commands from, whose sticky comments it edits, whose issues it trusts. GITEA_BOT_LOGIN is only the
// answer when Gitea cannot be asked; without either the bot does not start (with an empty login it
// would obey its own comments and post a new dashboard on every edit).
import type { Env } from '../config/env.ts';
import { AppError } from '../errors.ts';
import { giteaCurrentLogin } from '../forges/gitea/current-user.ts';
import type { Logger } from '../observability/logger.ts';

export const learnGiteaLogin = async (gitea: NonNullable<Env['gitea']>, logger: Logger): Promise<string> => {
  const configured = gitea.botLogin;
  try {
    const asked = await giteaCurrentLogin({ url: gitea.url, token: gitea.token, logger });
    if (configured && configured.toLowerCase() !== asked.toLowerCase())
      logger.warn({ configured, asked }, 'GITEA_BOT_LOGIN differs from the token user; using the token user');
    return asked;
  } catch (err) {
    if (configured) {
      logger.warn({ err }, 'could not ask Gitea who the token belongs to; using GITEA_BOT_LOGIN');
      return configured;
    }
    throw new AppError(
      'config_invalid',
      'Could not learn the Gitea bot login (GET /user with GITEA_TOKEN failed) and GITEA_BOT_LOGIN is not set: the bot would not know its own comments, so it does not start.',
      { cause: err instanceof Error ? err.message : String(err) },
    );
  }
};
