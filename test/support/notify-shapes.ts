// The documented request shapes of the chat services blitz-bot notifies, as zod schemas a loopback
// recorder checks every body against (strict: a field the service does not document fails the test).
// Sources: Slack Block Kit reference (header, section, context, actions blocks; text objects), Discord
// "Execute Webhook" and the embed object with its limits, Microsoft Teams Workflows webhook (a message
// with Adaptive Card attachments), Matrix client-server API m.room.message, ntfy publishing headers.
import { z } from 'zod';

const plainText = z.strictObject({
  type: z.literal('plain_text'),
  text: z.string().min(1),
  emoji: z.boolean().optional(),
});
const mrkdwn = z.strictObject({ type: z.literal('mrkdwn'), text: z.string().min(1).max(3000) });

export const slackMessage = z.strictObject({
  /** Shown in notifications and to screen readers when blocks are present. */
  text: z.string().min(1),
  blocks: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({
          type: z.literal('header'),
          text: plainText.extend({ text: z.string().min(1).max(150) }),
        }),
        z.strictObject({ type: z.literal('section'), text: z.union([mrkdwn, plainText]) }),
        z.strictObject({
          type: z.literal('context'),
          elements: z
            .array(z.union([mrkdwn, plainText]))
            .min(1)
            .max(10),
        }),
        z.strictObject({
          type: z.literal('actions'),
          elements: z
            .array(
              z.strictObject({
                type: z.literal('button'),
                text: plainText.extend({ text: z.string().min(1).max(75) }),
                url: z.url().max(3000),
              }),
            )
            .min(1)
            .max(25),
        }),
      ]),
    )
    .min(1)
    .max(50),
});

export const discordWebhook = z
  .strictObject({
    content: z.string().max(2000).optional(),
    allowed_mentions: z.strictObject({ parse: z.array(z.enum(['roles', 'users', 'everyone'])) }).optional(),
    embeds: z
      .array(
        z.strictObject({
          title: z.string().max(256).optional(),
          description: z.string().max(4096).optional(),
          url: z.url().optional(),
          color: z.int().min(0).max(0xffffff).optional(),
          fields: z
            .array(
              z.strictObject({
                name: z.string().min(1).max(256),
                value: z.string().min(1).max(1024),
                inline: z.boolean().optional(),
              }),
            )
            .max(25)
            .optional(),
        }),
      )
      .max(10)
      .optional(),
  })
  .refine((b) => b.content !== undefined || (b.embeds?.length ?? 0) > 0, 'content or embeds is required');

const textBlock = z.strictObject({
  type: z.literal('TextBlock'),
  text: z.string(),
  weight: z.enum(['Lighter', 'Default', 'Bolder']).optional(),
  size: z.enum(['Small', 'Default', 'Medium', 'Large', 'ExtraLarge']).optional(),
  wrap: z.boolean().optional(),
});
const factSet = z.strictObject({
  type: z.literal('FactSet'),
  facts: z.array(z.strictObject({ title: z.string(), value: z.string() })).min(1),
});

export const teamsWorkflowMessage = z.strictObject({
  type: z.literal('message'),
  attachments: z
    .array(
      z.strictObject({
        contentType: z.literal('application/vnd.microsoft.card.adaptive'),
        contentUrl: z.null(),
        content: z.strictObject({
          $schema: z.literal('http://adaptivecards.io/schemas/adaptive-card.json'),
          type: z.literal('AdaptiveCard'),
          version: z.string().regex(/^1\.[0-5]$/),
          body: z.array(z.discriminatedUnion('type', [textBlock, factSet])).min(1),
          actions: z
            .array(z.strictObject({ type: z.literal('Action.OpenUrl'), title: z.string(), url: z.url() }))
            .optional(),
        }),
      }),
    )
    .length(1),
});

export const matrixRoomMessage = z.strictObject({
  msgtype: z.enum(['m.text', 'm.notice']),
  body: z.string().min(1),
  format: z.literal('org.matrix.custom.html').optional(),
  formatted_body: z.string().optional(),
});

/** ntfy's publish headers as Node receives them (lower-cased names). */
export const ntfyHeaders = z.looseObject({
  title: z.string().regex(/^[\x20-\x7e]+$/, 'a header value is ASCII (RFC 2047 for anything else)'),
  priority: z.enum(['min', 'low', 'default', 'high', 'max', '1', '2', '3', '4', '5']),
  tags: z.string().regex(/^[a-z0-9_+-]+(,[a-z0-9_+-]+)*$/),
  click: z.url().optional(),
});
