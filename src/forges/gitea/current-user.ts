// Who the Gitea token belongs to (`GET /user`): the bot's own login, learnt at start from its
// credentials, so it ignores its own comments and edits its own sticky comments without being told.
import { type Logger, silentLogger } from '../../observability/logger.ts';
import { defaultRetryPolicy, GiteaClient } from './client.ts';
import type { GiteaForgeOptions } from './index.ts';
import { GiteaUser } from './schema.ts';

export const giteaCurrentLogin = async (
  opts: Pick<GiteaForgeOptions, 'url' | 'token' | 'retry' | 'fetch' | 'onRequest'> & { logger?: Logger },
): Promise<string> => {
  const client = new GiteaClient({
    url: opts.url,
    token: opts.token,
    botLogin: 'the token user',
    logger: opts.logger ?? silentLogger(),
    retry: { ...defaultRetryPolicy, ...opts.retry },
    fetch: opts.fetch ?? globalThis.fetch,
    requestTimeoutMs: 30_000,
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
  });
  const user = await client.json(GiteaUser, { method: 'GET', path: '/user', what: 'read the token user' });
  return user.login;
};
