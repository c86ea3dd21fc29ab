// Reading what agent CLIs print: claude `--output-format stream-json` lines, codex `--json` events,
// or plain text. Every JSON line is outside input, checked with zod before use.
import { z } from 'zod';
import type { TokenUsage } from './types.ts';

const claudeUsage = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().optional(),
});
const claudeResult = z.looseObject({
  type: z.literal('result'),
  result: z.string().optional(),
  usage: claudeUsage.optional(),
});
const claudeAssistant = z.looseObject({
  type: z.literal('assistant'),
  message: z.looseObject({
    content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
    usage: claudeUsage.optional(),
  }),
});
const codexTurn = z.looseObject({
  type: z.literal('turn.completed'),
  usage: z.looseObject({
    input_tokens: z.number().optional(),
    cached_input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
  }),
});
const codexItem = z.looseObject({
  type: z.literal('item.completed'),
  item: z.looseObject({ type: z.string(), text: z.string().optional() }),
});

/** Each line that is a JSON object, parsed; other lines are skipped. */
export const jsonLines = (text: string): unknown[] => {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      out.push(JSON.parse(t));
    } catch {
      // A partial line (the log is still being written) or plain text that starts with a brace.
    }
  }
  return out;
};

/** The human-readable text of a log: agent messages out of JSON events, other lines as they are. */
export const agentText = (log: string): string => {
  const parts: string[] = [];
  for (const line of log.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) {
      parts.push(line);
      continue;
    }
    let ev: unknown;
    try {
      ev = JSON.parse(t);
    } catch {
      parts.push(line);
      continue;
    }
    const result = claudeResult.safeParse(ev);
    if (result.success) {
      if (result.data.result) parts.push(result.data.result);
      continue;
    }
    const assistant = claudeAssistant.safeParse(ev);
    if (assistant.success) {
      for (const c of assistant.data.message.content ?? [])
        if (c.type === 'text' && c.text) parts.push(c.text);
      continue;
    }
    const item = codexItem.safeParse(ev);
    if (item.success && item.data.item.text && item.data.item.type.includes('message'))
      parts.push(item.data.item.text);
  }
  return parts.join('\n');
};

/**
 * Token usage the tool reported. claude: each `result` event carries the totals of one invocation
 * (summed across resumes); without one, per-message usage is summed. codex: `turn.completed` usage.
 */
export const parseTokenUsage = (log: string): TokenUsage | undefined => {
  const events = jsonLines(log);
  const fromResults: TokenUsage = { input: 0, output: 0, cache: 0 };
  const fromMessages: TokenUsage = { input: 0, output: 0, cache: 0 };
  let results = 0;
  let messages = 0;
  for (const ev of events) {
    const r = claudeResult.safeParse(ev);
    if (r.success && r.data.usage) {
      add(fromResults, r.data.usage);
      results++;
      continue;
    }
    const a = claudeAssistant.safeParse(ev);
    if (a.success && a.data.message.usage) {
      add(fromMessages, a.data.message.usage);
      messages++;
      continue;
    }
    const c = codexTurn.safeParse(ev);
    if (c.success) {
      fromResults.input += c.data.usage.input_tokens ?? 0;
      fromResults.output += c.data.usage.output_tokens ?? 0;
      fromResults.cache = (fromResults.cache ?? 0) + (c.data.usage.cached_input_tokens ?? 0);
      results++;
    }
  }
  if (results > 0) return fromResults;
  if (messages > 0) return fromMessages;
  return undefined;
};

const add = (t: TokenUsage, u: z.infer<typeof claudeUsage>): void => {
  t.input += u.input_tokens ?? 0;
  t.output += u.output_tokens ?? 0;
  t.cache = (t.cache ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
};
