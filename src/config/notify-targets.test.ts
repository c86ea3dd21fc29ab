import { describe, expect, it } from 'vitest';
import { isAppError } from '../errors.ts';
import { parseBlitzConfig } from './blitz-config.ts';
import { notifyTargetsFrom } from './notify-targets.ts';

const config = parseBlitzConfig(
  [
    'notify:',
    '  - { type: homeAssistant, url: "http://ha.local:8123", tokenEnv: HA_TOKEN, service: notify.mobile_app_phone }',
    '  - { type: webhook, url: "https://hooks.example.com/blitz", events: [shipped, failed] }',
    '  - { type: slack, urlEnv: SLACK_WEBHOOK_URL, events: [blocked, needs_person, failed] }',
    '  - { type: ntfy, name: phone, urlEnv: NTFY_TOPIC_URL, tokenEnv: NTFY_TOKEN, priority: high }',
    '  - { type: matrix, homeserver: "https://matrix.example.org", roomId: "!ops:example.org", tokenEnv: MATRIX_TOKEN }',
  ].join('\n'),
);
const allEvents = [
  'started',
  'parked',
  'blocked',
  'needs_person',
  'shipped',
  'failed',
  'review_unclear',
  'warning',
];

describe('notify targets from blitz.config.yml', () => {
  it('read each secret from the variable the file names, and nothing else of the environment', () => {
    const env = {
      HA_TOKEN: 'ha-secret',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
      NTFY_TOPIC_URL: 'https://ntfy.sh/t0p1c',
      NTFY_TOKEN: 'tk_1',
      MATRIX_TOKEN: 'syt_1',
      OTHER: 'x',
    };
    expect(notifyTargetsFrom(config.notify, env).targets).toEqual([
      {
        type: 'homeAssistant',
        name: 'homeAssistant',
        events: allEvents,
        url: 'http://ha.local:8123',
        service: 'notify.mobile_app_phone',
        token: 'ha-secret',
        tokenEnv: 'HA_TOKEN',
      },
      {
        type: 'webhook',
        name: 'webhook',
        events: ['shipped', 'failed'],
        url: 'https://hooks.example.com/blitz',
      },
      {
        type: 'slack',
        name: 'slack',
        events: ['blocked', 'needs_person', 'failed'],
        url: env.SLACK_WEBHOOK_URL,
        urlEnv: 'SLACK_WEBHOOK_URL',
      },
      {
        type: 'ntfy',
        name: 'phone',
        events: allEvents,
        url: env.NTFY_TOPIC_URL,
        urlEnv: 'NTFY_TOPIC_URL',
        token: 'tk_1',
        tokenEnv: 'NTFY_TOKEN',
        priority: 'high',
      },
      {
        type: 'matrix',
        name: 'matrix',
        events: allEvents,
        homeserver: 'https://matrix.example.org',
        roomId: '!ops:example.org',
        token: 'syt_1',
        tokenEnv: 'MATRIX_TOKEN',
      },
    ]);
  });

  it('leave a secret undefined when its variable is unset or empty, naming the variable', () => {
    for (const env of [{}, { HA_TOKEN: '', SLACK_WEBHOOK_URL: '' }]) {
      const [ha, , slack] = notifyTargetsFrom(config.notify, env).targets ?? [];
      expect(ha).toMatchObject({ token: undefined, tokenEnv: 'HA_TOKEN' });
      expect(slack).toMatchObject({ url: undefined, urlEnv: 'SLACK_WEBHOOK_URL' });
    }
  });

  it('are empty when the file configures none', () => {
    expect(notifyTargetsFrom(parseBlitzConfig('').notify, { HA_TOKEN: 'x' })).toEqual({ targets: [] });
  });
});

describe('notify: in blitz.config.yml refuses', () => {
  const problemOf = (yaml: string): string => {
    try {
      parseBlitzConfig(yaml);
    } catch (err) {
      if (isAppError(err, 'config_invalid')) return err.message;
      throw err;
    }
    return 'accepted';
  };

  it.each([
    [
      'the old mapping form',
      'notify:\n  webhook: {url: "https://x.org"}',
      'notify: must be a list of targets',
    ],
    [
      'a service it does not know',
      'notify:\n  - {type: telegram, url: "https://x.org"}',
      'notify entry 1 → type',
    ],
    [
      'an event it does not know',
      'notify:\n  - {type: webhook, url: "https://x.org", events: [shiped]}',
      'events entry 1',
    ],
    [
      'both url and urlEnv',
      'notify:\n  - {type: slack, url: "https://x.org", urlEnv: SLACK}',
      'give exactly one of url and urlEnv',
    ],
    ['neither url nor urlEnv', 'notify:\n  - {type: discord}', 'give exactly one of url and urlEnv'],
    [
      'a token pasted where the NAME of its variable belongs',
      'notify:\n  - {type: matrix, homeserver: "https://m.org", roomId: "!r:m.org", tokenEnv: "syt_abc.secret"}',
      'notify entry 1 → tokenEnv: must be an environment variable name',
    ],
    [
      'a room alias',
      'notify:\n  - {type: matrix, homeserver: "https://m.org", roomId: "#ops:m.org", tokenEnv: T}',
      'room id',
    ],
    [
      'two targets with one name',
      'notify:\n  - {type: webhook, url: "https://a.org"}\n  - {type: webhook, url: "https://b.org"}',
      'two targets are called webhook',
    ],
    [
      'a misspelt key, with a suggestion',
      'notify:\n  - {type: ntfy, url: "https://ntfy.sh/t", priorty: high}',
      'did you mean `priority`?',
    ],
  ])('%s', (_why, yaml, message) => {
    expect(problemOf(yaml)).toContain(message);
  });
});
