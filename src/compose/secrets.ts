// The secret values this bot was configured with, for the redactor (observability/redact.ts): forge
// credentials, webhook secrets, the status token, the database password, the notify tokens and webhook URLs. Whatever a
// worker prints, none of them reaches a comment, a status page or report.html.
import type { Env } from '../config/env.ts';
import type { NotifyTargetValues } from '../config/notify-targets.ts';

const passwordOf = (url: string): string | undefined => {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
};

export const configuredSecrets = (env: Env, notify: NotifyTargetValues): (string | undefined)[] => [
  env.github?.privateKey,
  env.github?.webhookSecret,
  env.gitea?.token,
  env.gitea?.pushToken,
  env.gitea?.webhookSecret,
  env.STATUS_TOKEN,
  passwordOf(env.DATABASE_URL),
  env.GITEA_URL ? passwordOf(env.GITEA_URL) : undefined,
  ...(notify.targets ?? []).flatMap((t) => [
    'token' in t ? t.token : undefined,
    'secret' in t ? t.secret : undefined,
    // A Slack, Discord, Teams or generic webhook URL is itself the secret.
    t.type !== 'homeAssistant' && t.type !== 'matrix' ? t.url : undefined,
  ]),
];
