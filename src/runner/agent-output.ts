// Reading what agent CLIs print: claude `--output-format stream-json` lines (qwen prints the same
// shape), codex `--json` events, opencode `--format json` events, gemini `--output-format stream-json`
// events (`init`, `message`, `tool_use`, `tool_result`, `result` with `stats`), or plain text. Every JSON line is outside input, checked with zod
// before use. The shapes were taken from the real CLIs (the compatibility tier, test/agents/).
import { z } from 'zod';
import type { PermissionDenial, TokenUsage } from './types.ts';

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
const codexThread = z.looseObject({ type: z.literal('thread.started'), thread_id: z.string() });
/** The init event claude and qwen print as an invocation starts; qwen's names its version. */
const systemInit = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  qwen_code_version: z.string().optional(),
});
const resultSession = z.looseObject({ type: z.literal('result'), session_id: z.string() });
const opencodeStep = z.looseObject({
  type: z.literal('step_finish'),
  part: z.looseObject({
    tokens: z.looseObject({
      input: z.number().optional(),
      output: z.number().optional(),
      cache: z.looseObject({ read: z.number().optional(), write: z.number().optional() }).optional(),
    }),
  }),
});
const opencodeText = z.looseObject({
  type: z.literal('text'),
  part: z.looseObject({ text: z.string() }),
});
const geminiResult = z.looseObject({
  type: z.literal('result'),
  stats: z.looseObject({
    input_tokens: z.number().optional(),
    /** Input not read from the cache (input_tokens less cached), where the CLI reports it. */
    input: z.number().optional(),
    output_tokens: z.number().optional(),
    cached: z.number().optional(),
  }),
});
/** gemini streams an assistant message in chunks (`delta: true`), to be joined as they come. */
const geminiMessage = z.looseObject({
  type: z.literal('message'),
  role: z.literal('assistant'),
  content: z.string(),
  delta: z.boolean().optional(),
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
  let joining = false;
  for (const line of log.split('\n')) {
    const t = line.trim();
    const wasJoining = joining;
    joining = false;
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
    if (item.success && item.data.item.text && item.data.item.type.includes('message')) {
      parts.push(item.data.item.text);
      continue;
    }
    const text = opencodeText.safeParse(ev);
    if (text.success) {
      parts.push(text.data.part.text);
      continue;
    }
    const chunk = geminiMessage.safeParse(ev);
    if (chunk.success) {
      if (wasJoining && chunk.data.delta) parts[parts.length - 1] += chunk.data.content;
      else parts.push(chunk.data.content);
      joining = chunk.data.delta === true;
    }
  }
  return parts.join('\n');
};

/**
 * Token usage the tool reported. claude: each `result` event carries the totals of one invocation
 * (summed across resumes); without one, per-message usage is summed. codex: `turn.completed` usage
 * is the thread's running total (a resumed thread goes on counting), so each thread counts once, at
 * its last report. opencode: each `step_finish` carries one model call's tokens, summed. gemini: each
 * `result` carries one invocation's `stats`, summed. qwen prints claude's shape, but its `result` usage
 * is the session's running total (a resumed session restores it), so each session counts once, at its
 * last result.
 */
export const parseTokenUsage = (log: string): TokenUsage | undefined => {
  const events = jsonLines(log);
  const fromResults: TokenUsage = { input: 0, output: 0, cache: 0, cacheWrite: 0 };
  const fromMessages: TokenUsage = { input: 0, output: 0, cache: 0, cacheWrite: 0 };
  const codexThreads = new Map<string, TokenUsage>();
  const qwenSessions = new Map<string, TokenUsage>();
  let thread = '';
  let qwen = false;
  let results = 0;
  let messages = 0;
  for (const ev of events) {
    const g = geminiResult.safeParse(ev);
    if (g.success) {
      const st = g.data.stats;
      const cached = st.cached ?? 0;
      fromResults.input += st.input ?? Math.max(0, (st.input_tokens ?? 0) - cached);
      fromResults.output += st.output_tokens ?? 0;
      fromResults.cache = (fromResults.cache ?? 0) + cached;
      results++;
      continue;
    }
    const init = systemInit.safeParse(ev);
    if (init.success) qwen = init.data.qwen_code_version !== undefined;
    const r = claudeResult.safeParse(ev);
    if (r.success && r.data.usage) {
      const session = resultSession.safeParse(ev);
      if (qwen && session.success) {
        const total: TokenUsage = { input: 0, output: 0, cache: 0, cacheWrite: 0 };
        add(total, r.data.usage);
        qwenSessions.set(session.data.session_id, total);
      } else {
        add(fromResults, r.data.usage);
        results++;
      }
      continue;
    }
    const a = claudeAssistant.safeParse(ev);
    if (a.success && a.data.message.usage) {
      add(fromMessages, a.data.message.usage);
      messages++;
      continue;
    }
    const t = codexThread.safeParse(ev);
    if (t.success) {
      thread = t.data.thread_id;
      continue;
    }
    const c = codexTurn.safeParse(ev);
    if (c.success) {
      // codex's input_tokens include the cached ones (OpenAI usage): `input` is the uncached part, as
      // for claude and opencode. OpenAI charges no cache write.
      const cached = c.data.usage.cached_input_tokens ?? 0;
      codexThreads.set(thread, {
        input: Math.max(0, (c.data.usage.input_tokens ?? 0) - cached),
        output: c.data.usage.output_tokens ?? 0,
        cache: cached,
        cacheWrite: 0,
      });
      continue;
    }
    const o = opencodeStep.safeParse(ev);
    if (o.success) {
      const k = o.data.part.tokens;
      fromResults.input += k.input ?? 0;
      fromResults.output += k.output ?? 0;
      fromResults.cache = (fromResults.cache ?? 0) + (k.cache?.read ?? 0) + (k.cache?.write ?? 0);
      fromResults.cacheWrite = (fromResults.cacheWrite ?? 0) + (k.cache?.write ?? 0);
      results++;
    }
  }
  for (const u of [...codexThreads.values(), ...qwenSessions.values()]) {
    fromResults.input += u.input;
    fromResults.output += u.output;
    fromResults.cache = (fromResults.cache ?? 0) + (u.cache ?? 0);
    fromResults.cacheWrite = (fromResults.cacheWrite ?? 0) + (u.cacheWrite ?? 0);
    results++;
  }
  if (results > 0) return fromResults;
  if (messages > 0) return fromMessages;
  return undefined;
};

/** A model name as the CLIs print it (`claude-sonnet-5-5`, `gemini-3-pro-preview`, `opus[1m]`): shown and priced, never run. */
export const modelNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,127}$/);

const modelInit = z.looseObject({
  type: z.enum(['system', 'init']),
  subtype: z.string().optional(),
  model: modelNameSchema,
});

/**
 * The model the tool says it ran, from its own start event: claude's and qwen's `system` `init`, gemini's
 * `init` (the latest invocation's, as a resume starts one). It is what a roster entry without `model`
 * ran, the tool's own default, which the bot cannot know beforehand (it depends on the CLI's version
 * and the account). codex, opencode and aider print none: undefined, an unknown price.
 */
export const parseReportedModel = (log: string): string | undefined => {
  let found: string | undefined;
  for (const ev of jsonLines(log)) {
    const m = modelInit.safeParse(ev);
    if (m.success && (m.data.type === 'init' || m.data.subtype === 'init')) found = m.data.model;
  }
  return found;
};

/** A session id as the CLIs print them (UUIDs, `ses_…`): never an option, never a path. */
export const sessionIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/);

const claudeSession = z.looseObject({
  type: z.enum(['system', 'result', 'init']),
  session_id: sessionIdSchema,
});
const opencodeSession = z.looseObject({ type: z.string(), sessionID: sessionIdSchema });

/**
 * The session the log's latest run used: claude's and qwen's `session_id` (init and result events),
 * gemini's (`init`), codex
 * `thread.started` thread id, opencode `sessionID`. Only top-level events count: what a command
 * printed sits inside them as a string.
 */
export const parseSessionId = (log: string): string | undefined => {
  let found: string | undefined;
  for (const ev of jsonLines(log)) {
    const c = claudeSession.safeParse(ev);
    if (c.success) {
      found = c.data.session_id;
      continue;
    }
    const t = codexThread.safeParse(ev);
    if (t.success && sessionIdSchema.safeParse(t.data.thread_id).success) {
      found = t.data.thread_id;
      continue;
    }
    const o = opencodeSession.safeParse(ev);
    if (o.success) found = o.data.sessionID;
  }
  return found;
};

const add = (t: TokenUsage, u: z.infer<typeof claudeUsage>): void => {
  t.input += u.input_tokens ?? 0;
  t.output += u.output_tokens ?? 0;
  t.cache = (t.cache ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
  t.cacheWrite = (t.cacheWrite ?? 0) + (u.cache_creation_input_tokens ?? 0);
};

const claudeDenials = z.looseObject({
  type: z.literal('result'),
  permission_denials: z.array(
    z.looseObject({
      tool_name: z.string().max(200),
      tool_input: z.looseObject({ command: z.string().optional() }).optional(),
    }),
  ),
});

/** The first word of a shell command, when it is a plain program name or path (else no rule is offered). */
const programOf = (command: string): string | undefined => {
  const first = command.trim().split(/\s+/)[0] ?? '';
  return /^[A-Za-z0-9._/+-]{1,100}$/.test(first) ? first : undefined;
};

/** The allowlist rule that would have let a refused call run: `Bash(pytest:*)`, or the tool's name. */
export const allowRuleFor = (tool: string, command?: string): string | undefined => {
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(tool)) return undefined;
  if (tool !== 'Bash') return tool;
  const program = command === undefined ? undefined : programOf(command);
  return program ? `Bash(${program}:*)` : undefined;
};

const MAX_DENIALS = 20;

/**
 * The calls the tool refused (claude's and qwen's `result.permission_denials`), one per allowlist rule
 * in the order first seen, across every invocation in the log. The command is the model's text: shown
 * to a person, never run.
 */
export const parsePermissionDenials = (log: string): PermissionDenial[] => {
  const out: PermissionDenial[] = [];
  const seen = new Set<string>();
  for (const ev of jsonLines(log)) {
    const r = claudeDenials.safeParse(ev);
    if (!r.success) continue;
    for (const d of r.data.permission_denials) {
      const command = d.tool_input?.command?.slice(0, 300);
      const rule = allowRuleFor(d.tool_name, command);
      const key = rule ?? `${d.tool_name}:${command ?? ''}`;
      if (seen.has(key) || out.length >= MAX_DENIALS) continue;
      seen.add(key);
      out.push({ tool: d.tool_name, ...(command ? { command } : {}), ...(rule ? { rule } : {}) });
    }
  }
  return out;
};

/** The sentence an attempt stopped by refusals ends with: what was refused, and the rules to allow. */
export const refusedSummary = (tool: string, denials: readonly PermissionDenial[]): string => {
  const what = denials
    .slice(0, 5)
    .map((d) => (d.command ? `\`${d.command.replace(/`/g, "'").slice(0, 80)}\`` : d.tool))
    .join(', ');
  const rules = [...new Set(denials.flatMap((d) => (d.rule ? [d.rule] : [])))];
  const allow = rules.length
    ? ` Add ${rules.map((x) => `\`${x}\``).join(', ')} to the roster entry's \`allowedTools\`, then retry.`
    : ' Allow them in the roster entry, then retry.';
  return `${tool} refused commands the worker needed (${what}); a person has to allow them.${allow}`;
};
