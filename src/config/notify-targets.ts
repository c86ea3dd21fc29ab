// The notify targets of blitz.config.yml with their secrets read from the environment variables the
// file names (`tokenEnv`, `urlEnv`): a secret never sits in the file, and only config/ reads env.
import type { NotifyTargetValue } from '../ship/notify.ts';
import type { BlitzConfig } from './blitz-config.ts';

export interface NotifyTargetValues {
  targets?: NotifyTargetValue[];
}

export const notifyTargetsFrom = (
  notify: BlitzConfig['notify'],
  env: Record<string, string | undefined> = process.env,
): NotifyTargetValues => {
  const read = (name: string | undefined): string | undefined => (name ? env[name] || undefined : undefined);
  const targets = notify.map((t): NotifyTargetValue => {
    const named = { name: t.name ?? t.type, events: t.events };
    switch (t.type) {
      case 'matrix':
        return {
          ...named,
          type: t.type,
          homeserver: t.homeserver,
          roomId: t.roomId,
          token: read(t.tokenEnv),
          tokenEnv: t.tokenEnv,
        };
      case 'homeAssistant':
        return {
          ...named,
          type: t.type,
          url: t.url,
          service: t.service,
          token: read(t.tokenEnv),
          tokenEnv: t.tokenEnv,
        };
      case 'ntfy':
        return {
          ...named,
          type: t.type,
          url: t.url ?? read(t.urlEnv),
          ...(t.urlEnv ? { urlEnv: t.urlEnv } : {}),
          ...(t.tokenEnv ? { token: read(t.tokenEnv), tokenEnv: t.tokenEnv } : {}),
          ...(t.priority ? { priority: t.priority } : {}),
        };
      case 'webhook':
        return {
          ...named,
          type: t.type,
          url: t.url ?? read(t.urlEnv),
          ...(t.urlEnv ? { urlEnv: t.urlEnv } : {}),
          ...(t.secretEnv ? { secret: read(t.secretEnv), secretEnv: t.secretEnv } : {}),
        };
      default:
        return {
          ...named,
          type: t.type,
          url: t.url ?? read(t.urlEnv),
          ...(t.urlEnv ? { urlEnv: t.urlEnv } : {}),
        };
    }
  });
  return { targets };
};
