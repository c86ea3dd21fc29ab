// An attempt's timeline replayed from the worker's stream log (seed 003 "activity"): each assistant
// turn with its text, tool calls paired with their results, token usage per turn, and the final
// response. Reads claude `stream-json`, codex `--json` and opencode `--format json`; any other line is
// kept as plain output.
// Every JSON line is outside input, checked with zod; text is returned raw and escaped by the page.
import { z } from 'zod';
import { jsonLines, parseTokenUsage } from '../runner/agent-output.ts';
import type { TokenUsage } from '../runner/types.ts';

export interface ToolCall {
  id: string;
  name: string;
  /** The tool input as pretty JSON. */
  input: string;
  result?: string;
  isError?: boolean;
}

export type TimelineStep =
  | { kind: 'session'; model?: string; sessionId?: string }
  | { kind: 'turn'; texts: string[]; tools: ToolCall[]; usage?: TokenUsage }
  | { kind: 'output'; text: string }
  | { kind: 'final'; text: string; isError: boolean };

export interface AttemptTimeline {
  steps: TimelineStep[];
  tokens?: TokenUsage;
  toolCalls: number;
}

const usageSchema = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().optional(),
});
const contentBlock = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  tool_use_id: z.string().optional(),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});
const claudeInit = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  model: z.string().optional(),
  session_id: z.string().optional(),
});
const claudeMessage = z.looseObject({
  type: z.enum(['assistant', 'user']),
  message: z.looseObject({
    content: z.union([z.string(), z.array(contentBlock)]).optional(),
    usage: usageSchema.optional(),
  }),
});
const claudeResult = z.looseObject({
  type: z.literal('result'),
  result: z.string().optional(),
  is_error: z.boolean().optional(),
});
const codexItem = z.looseObject({
  type: z.literal('item.completed'),
  item: z.looseObject({
    id: z.string().optional(),
    type: z.string(),
    text: z.string().optional(),
    command: z.string().optional(),
    aggregated_output: z.string().optional(),
    exit_code: z.number().nullable().optional(),
  }),
});

const opencodeTool = z.looseObject({
  type: z.literal('tool_use'),
  part: z.looseObject({
    tool: z.string(),
    callID: z.string().optional(),
    state: z.looseObject({
      input: z.unknown().optional(),
      output: z.string().optional(),
      status: z.string().optional(),
      metadata: z.looseObject({ exit: z.number().nullable().optional() }).optional(),
    }),
  }),
});
const opencodeText = z.looseObject({ type: z.literal('text'), part: z.looseObject({ text: z.string() }) });

const toUsage = (u: z.infer<typeof usageSchema>): TokenUsage => ({
  input: u.input_tokens ?? 0,
  output: u.output_tokens ?? 0,
  cache: (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
});

const pretty = (value: unknown): string => {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
};

// A tool result is a string or a list of blocks; only text blocks are shown (images are named).
const resultText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  const blocks = z.array(contentBlock).safeParse(content);
  if (!blocks.success) return pretty(content);
  return blocks.data.map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n');
};

export const parseAttemptTimeline = (log: string): AttemptTimeline => {
  const steps: TimelineStep[] = [];
  const toolsById = new Map<string, ToolCall>();
  let toolCalls = 0;
  let plain: string[] = [];
  const flushPlain = () => {
    const text = plain.join('\n').trim();
    if (text) steps.push({ kind: 'output', text });
    plain = [];
  };
  for (const line of log.split('\n')) {
    const [event] = line.trim().startsWith('{') ? jsonLines(line) : [];
    if (event === undefined) {
      plain.push(line);
      continue;
    }
    const init = claudeInit.safeParse(event);
    if (init.success) {
      flushPlain();
      steps.push({
        kind: 'session',
        ...(init.data.model ? { model: init.data.model } : {}),
        ...(init.data.session_id ? { sessionId: init.data.session_id } : {}),
      });
      continue;
    }
    const message = claudeMessage.safeParse(event);
    if (message.success) {
      flushPlain();
      const content = message.data.message.content;
      const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
      if (message.data.type === 'user') {
        for (const b of blocks) {
          const call = b.type === 'tool_result' && b.tool_use_id ? toolsById.get(b.tool_use_id) : undefined;
          if (!call) continue;
          call.result = resultText(b.content);
          if (b.is_error) call.isError = true;
        }
        continue;
      }
      const turn: TimelineStep & { kind: 'turn' } = { kind: 'turn', texts: [], tools: [] };
      for (const b of blocks) {
        if (b.type === 'text' && b.text) turn.texts.push(b.text);
        if (b.type === 'tool_use') {
          const call: ToolCall = {
            id: b.id ?? `tool-${toolCalls}`,
            name: b.name ?? 'tool',
            input: pretty(b.input),
          };
          toolsById.set(call.id, call);
          turn.tools.push(call);
          toolCalls++;
        }
      }
      if (message.data.message.usage) turn.usage = toUsage(message.data.message.usage);
      steps.push(turn);
      continue;
    }
    const result = claudeResult.safeParse(event);
    if (result.success) {
      flushPlain();
      steps.push({ kind: 'final', text: result.data.result ?? '', isError: result.data.is_error === true });
      continue;
    }
    const item = codexItem.safeParse(event);
    if (item.success) {
      flushPlain();
      const it = item.data.item;
      if (it.type === 'command_execution' && it.command !== undefined) {
        steps.push({
          kind: 'turn',
          texts: [],
          tools: [
            {
              id: it.id ?? `tool-${toolCalls}`,
              name: 'shell',
              input: it.command,
              result: it.aggregated_output ?? '',
              ...(it.exit_code ? { isError: true } : {}),
            },
          ],
        });
        toolCalls++;
      } else if (it.text) steps.push({ kind: 'turn', texts: [it.text], tools: [] });
      continue;
    }
    const ocTool = opencodeTool.safeParse(event);
    if (ocTool.success) {
      flushPlain();
      const { part } = ocTool.data;
      const exit = part.state.metadata?.exit;
      steps.push({
        kind: 'turn',
        texts: [],
        tools: [
          {
            id: part.callID ?? `tool-${toolCalls}`,
            name: part.tool,
            input: pretty(part.state.input),
            result: part.state.output ?? '',
            ...(part.state.status === 'error' || (exit !== undefined && exit !== null && exit !== 0)
              ? { isError: true }
              : {}),
          },
        ],
      });
      toolCalls++;
      continue;
    }
    const ocText = opencodeText.safeParse(event);
    if (ocText.success) {
      flushPlain();
      steps.push({ kind: 'turn', texts: [ocText.data.part.text], tools: [] });
    }
    // Other JSON events (stream deltas, hooks) carry nothing a reader needs.
  }
  flushPlain();
  const tokens = parseTokenUsage(log);
  return { steps, toolCalls, ...(tokens ? { tokens } : {}) };
};
