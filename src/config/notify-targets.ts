// The notify targets of blitz.config.yml with the Home Assistant token read from the environment
// variable the file names (`tokenEnv`): the token never sits in the file, and only config/ reads env.
import type { BlitzConfig } from './blitz-config.ts';

export interface NotifyTargetValues {
  homeAssistant?: { url: string; service: string; token: string | undefined; tokenEnv: string };
  webhook?: { url: string };
}

export const notifyTargetsFrom = (
  notify: BlitzConfig['notify'],
  env: Record<string, string | undefined> = process.env,
): NotifyTargetValues => {
  const ha = notify.homeAssistant;
  return {
    ...(ha
      ? {
          homeAssistant: {
            url: ha.url,
            service: ha.service,
            token: env[ha.tokenEnv] || undefined,
            tokenEnv: ha.tokenEnv,
          },
        }
      : {}),
    ...(notify.webhook ? { webhook: { url: notify.webhook.url } } : {}),
  };
};
