import { describe, expect, it } from 'vitest';
import { parseBlitzConfig } from './blitz-config.ts';
import { notifyTargetsFrom } from './notify-targets.ts';

const config = parseBlitzConfig(
  [
    'notify:',
    '  homeAssistant: { url: "http://ha.local:8123", tokenEnv: HA_TOKEN, service: notify.mobile_app_phone }',
    '  webhook: { url: "https://hooks.example.com/blitz" }',
  ].join('\n'),
);

describe('notify targets from blitz.config.yml', () => {
  it('read the Home Assistant token from the variable the file names', () => {
    expect(notifyTargetsFrom(config.notify, { HA_TOKEN: 'ha-secret', OTHER: 'x' })).toEqual({
      homeAssistant: {
        url: 'http://ha.local:8123',
        service: 'notify.mobile_app_phone',
        token: 'ha-secret',
        tokenEnv: 'HA_TOKEN',
      },
      webhook: { url: 'https://hooks.example.com/blitz' },
    });
  });

  it('leave the token undefined when the variable is unset or empty, naming the variable', () => {
    for (const env of [{}, { HA_TOKEN: '' }]) {
      const ha = notifyTargetsFrom(config.notify, env).homeAssistant;
      expect(ha?.token).toBeUndefined();
      expect(ha?.tokenEnv).toBe('HA_TOKEN');
    }
  });

  it('are empty when the file configures none', () => {
    expect(notifyTargetsFrom(parseBlitzConfig('').notify, { HA_TOKEN: 'x' })).toEqual({});
  });
});
