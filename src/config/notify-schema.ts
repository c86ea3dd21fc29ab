// `notify:` in blitz.config.yml: a list of targets, each with the events it wants. A secret (a token,
// or a webhook URL that is itself the secret) is never written in the file: the entry names the
// environment variable holding it (`tokenEnv`, `urlEnv`), and only config/ reads it.
import { z } from 'zod';
import { notifyEvents } from '../ship/notice.ts';
import { ntfyPriorities } from '../ship/notify-ntfy.ts';
import { httpUrlRule, requires, withJsonSchemaRule } from './json-schema-rules.ts';

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name');
const httpUrl = withJsonSchemaRule(
  z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  httpUrlRule,
);

const common = {
  /** Shown on the dashboard beside a failure; default the type. Unique. */
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be lower-case letters, digits, `-` or `_`')
    .optional(),
  /** Which events this target receives; default all of them. */
  events: z
    .array(z.enum(notifyEvents))
    .min(1)
    .default([...notifyEvents]),
};

// The address, written in the file (`url`) or, when it is a secret, named by its variable (`urlEnv`).
const addressed = {
  /** The target's URL, when it is not a secret. */
  url: httpUrl.optional(),
  /** NAME of the environment variable holding the URL (Slack, Discord and Teams URLs are secrets). */
  urlEnv: envName.optional(),
};
const oneAddress = (e: { url?: string | undefined; urlEnv?: string | undefined }, ctx: z.RefinementCtx) => {
  if ((e.url === undefined) === (e.urlEnv === undefined))
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'give exactly one of url and urlEnv' });
};
/** oneAddress in JSON Schema words. */
const oneAddressRule = { oneOf: [requires('url'), requires('urlEnv')] };

const byUrl = <T extends string>(type: T) =>
  withJsonSchemaRule(
    z.strictObject({ type: z.literal(type), ...common, ...addressed }).superRefine(oneAddress),
    oneAddressRule,
  );

export const notifyTargetSchema = z.discriminatedUnion('type', [
  /** Slack incoming webhook (Block Kit). */
  byUrl('slack'),
  /** Discord channel webhook (an embed). */
  byUrl('discord'),
  /** Microsoft Teams Workflows webhook (an Adaptive Card). */
  byUrl('teams'),
  /** A plain JSON POST, signed when `secretEnv` is set. */
  withJsonSchemaRule(
    z
      .strictObject({
        type: z.literal('webhook'),
        ...common,
        ...addressed,
        /**
         * NAME of the variable holding the signing secret: each body then carries
         * `X-Blitz-Signature-256: sha256=<HMAC-SHA256 of the body>`.
         */
        secretEnv: envName.optional(),
      })
      .superRefine(oneAddress),
    oneAddressRule,
  ),
  /** ntfy topic URL (https://ntfy.sh/<topic> or your server). */
  withJsonSchemaRule(
    z
      .strictObject({
        type: z.literal('ntfy'),
        ...common,
        ...addressed,
        /** NAME of the variable holding an access token, for a server that wants one. */
        tokenEnv: envName.optional(),
        /** One priority for every event; default by event (failures high, starts low). */
        priority: z.enum(ntfyPriorities).optional(),
      })
      .superRefine(oneAddress),
    oneAddressRule,
  ),
  /** A Matrix room, through the client-server API with a bot account's access token. */
  z.strictObject({
    type: z.literal('matrix'),
    ...common,
    /** The homeserver's client URL, e.g. https://matrix.example.org. */
    homeserver: httpUrl,
    /** The room id (`!abc:example.org`), not an alias; the bot account must have joined it. */
    roomId: z.string().regex(/^![^:\s]+:\S+$/, 'must be a room id like !abc:example.org'),
    /** NAME of the variable holding the access token. */
    tokenEnv: envName,
  }),
  /** Home Assistant notify service. */
  z.strictObject({
    type: z.literal('homeAssistant'),
    ...common,
    url: httpUrl,
    /** NAME of the environment variable holding the token; the token itself never goes in this file. */
    tokenEnv: envName,
    /** e.g. `notify.mobile_app_phone`. */
    service: z.string().min(1),
  }),
]);
export type NotifyTargetConfig = z.output<typeof notifyTargetSchema>;

export const notifyListSchema = z
  .array(notifyTargetSchema, {
    error: (iss) =>
      iss.input !== null && typeof iss.input === 'object' && !Array.isArray(iss.input)
        ? 'must be a list of targets, e.g. `- {type: slack, urlEnv: SLACK_WEBHOOK_URL, events: [shipped, failed]}`'
        : undefined,
  })
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((e, i) => {
      const name = e.name ?? e.type;
      if (seen.has(name))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'name'],
          message: `two targets are called ${name}: give each its own name`,
        });
      seen.add(name);
    });
  });
