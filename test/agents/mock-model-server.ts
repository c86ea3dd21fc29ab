// A model endpoint on loopback for the compatibility tier: it speaks the four wire formats the real
// agent CLIs use (Anthropic Messages SSE for claude, OpenAI Responses SSE for codex, Chat Completions
// SSE for opencode and qwen, Gemini API `streamGenerateContent` SSE for gemini) and plays a scripted
// agent, calling whichever shell tool the request offers. The script is per scenario: a list of turns, one per
// prompt the CLI sends (the task, then each nudge), each a list of steps (run a shell command, or
// answer with text). The server keeps no conversation state: it reads which turn and step it is at
// from the conversation the CLI sends, so a resumed session is recognised by the history it carries.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step = { shell: string } | { text: string };

export interface Usage {
  input: number;
  output: number;
}

export interface ScriptedRequest {
  wire: Wire;
  turn: number;
  step: number;
  /** The usage this answer reported (zero for side requests such as titles). */
  usage: Usage;
  /** The request carried the first prompt of the session (true on a resumed session). */
  carriesTask: boolean;
  /** Text of the tool results the CLI sent back, newest last. */
  toolResults: string[];
}

export type Wire = 'anthropic' | 'responses' | 'chat' | 'gemini';

/**
 * Marks the prompts a turn starts with (src/runner/prompt.ts): the task, the runner's nudges, a merge
 * conflict handed back to the session, and the PR feedback loop's resumes (CI, a review, a person's tell).
 */
const TASK = /You are working on issue #/;
const TURN_START =
  /You are working on issue #|Your session (?:ended|went quiet|was interrupted)|The base branch `[^`]+` was merged into your branch|Your pull request is open, and|A person with write access on the repository sent you/;

interface Msg {
  kind: 'user' | 'call' | 'result' | 'assistant';
  text: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' ? (v as Record<string, unknown>) : {};

/** The conversation of a request, in one shape for the three wires. */
const conversation = (wire: Wire, body: Record<string, unknown>): Msg[] => {
  const out: Msg[] = [];
  if (wire === 'anthropic') {
    for (const m of asArray(body.messages).map(rec)) {
      const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : asArray(m.content);
      for (const p of parts.map(rec)) {
        if (p.type === 'tool_use') out.push({ kind: 'call', text: str(p.input) });
        else if (p.type === 'tool_result') out.push({ kind: 'result', text: str(p.content) });
        else if (p.type === 'text')
          out.push({ kind: m.role === 'user' ? 'user' : 'assistant', text: str(p.text) });
      }
    }
  } else if (wire === 'responses') {
    for (const it of asArray(body.input).map(rec)) {
      if (it.type === 'function_call' || it.type === 'custom_tool_call' || it.type === 'local_shell_call')
        out.push({ kind: 'call', text: str(it.arguments ?? it.input) });
      else if (it.type === 'function_call_output' || it.type === 'custom_tool_call_output')
        out.push({ kind: 'result', text: str(it.output) });
      else if (it.type === 'message' || it.role) {
        const text = asArray(it.content)
          .map((c) => str(rec(c).text))
          .join('\n');
        out.push({ kind: it.role === 'user' ? 'user' : 'assistant', text });
      }
    }
  } else if (wire === 'gemini') {
    for (const c of asArray(body.contents).map(rec)) {
      for (const p of asArray(c.parts).map(rec)) {
        if (p.functionCall) out.push({ kind: 'call', text: str(rec(p.functionCall).args) });
        else if (p.functionResponse)
          out.push({ kind: 'result', text: str(rec(p.functionResponse).response) });
        else if (typeof p.text === 'string')
          out.push({ kind: c.role === 'model' ? 'assistant' : 'user', text: p.text });
      }
    }
  } else {
    for (const m of asArray(body.messages).map(rec)) {
      if (m.role === 'tool') out.push({ kind: 'result', text: str(m.content) });
      else if (m.role === 'assistant') {
        for (const c of asArray(m.tool_calls))
          out.push({ kind: 'call', text: str(rec(rec(c).function).arguments) });
        if (m.content) out.push({ kind: 'assistant', text: str(m.content) });
      } else if (m.role === 'user') {
        const text =
          typeof m.content === 'string'
            ? m.content
            : asArray(m.content)
                .map((c) => str(rec(c).text))
                .join('\n');
        out.push({ kind: 'user', text });
      }
    }
  }
  return out;
};

/** Which turn (prompts seen so far, less one) and which step (tool calls since that prompt). */
const position = (
  msgs: Msg[],
): {
  turn: number;
  step: number;
  carriesTask: boolean;
  results: string[];
  task: string;
  prompt: string;
} => {
  let turn = -1;
  let step = 0;
  let carriesTask = false;
  let task = '';
  let prompt = '';
  const results: string[] = [];
  for (const m of msgs) {
    if (m.kind === 'user' && TURN_START.test(m.text)) {
      turn++;
      step = 0;
      prompt = m.text;
      if (TASK.test(m.text)) {
        carriesTask = true;
        task ||= m.text;
      }
    } else if (m.kind === 'call') step++;
    else if (m.kind === 'result') results.push(m.text);
  }
  return { turn, step, carriesTask, results, task, prompt };
};

const toolNames = (wire: Wire, body: Record<string, unknown>): string[] =>
  asArray(body.tools).flatMap((t) => {
    const r = rec(t);
    if (wire === 'gemini') return asArray(r.functionDeclarations).map((f) => str(rec(f).name));
    return [wire === 'chat' ? str(rec(r.function).name) : str(r.name ?? r.type)];
  });

/**
 * The shell tool the request offers and the arguments it takes for one command line: only a tool the
 * CLI named is ever called (claude `Bash`, opencode `bash`, gemini and qwen `run_shell_command`, codex
 * `exec_command`, `shell_command` or `shell`); undefined when it offers none.
 */
const shellCall = (tools: string[], command: string): { name: string; args: unknown } | undefined => {
  for (const name of ['Bash', 'bash', 'run_shell_command'])
    if (tools.includes(name)) return { name, args: { command, description: 'Run the step' } };
  if (tools.includes('exec_command')) return { name: 'exec_command', args: { cmd: command } };
  if (tools.includes('shell_command')) return { name: 'shell_command', args: { command } };
  if (tools.includes('shell')) return { name: 'shell', args: { command: ['bash', '-lc', command] } };
  return undefined;
};

export interface MockModel {
  url: string;
  port: number;
  requests: ScriptedRequest[];
  /** Requests the server did not expect (path or shape); a test fails on any. */
  unexpected: string[];
  /** Total usage reported for the scripted turns: what the attempt must record. */
  reported(): Usage;
  /**
   * The endpoint goes down as a provider's does: it stops listening and drops every connection, so a
   * CLI's next request is refused (its `url` stays the entry's endpoint, now unreachable).
   */
  goDown(): void;
  close(): Promise<void>;
}

/** What a scripted turn is answered from: the session's task prompt and the prompt that started the turn. */
export interface TurnContext {
  /** The first prompt of the session (`You are working on issue #N …`); empty when the CLI sent none. */
  task: string;
  /** The prompt that started this turn: the task, a nudge, a conflict or a PR feedback resume. */
  prompt: string;
  /** 0 for the task, then one more for each prompt the session was resumed with. */
  turn: number;
}

export interface MockOptions {
  turns: Step[][];
  /**
   * The steps of a turn, read from its prompts (many sessions on one endpoint, each issue its own
   * script); when given, `turns` is not read.
   */
  script?: (ctx: TurnContext) => Step[];
  /** Answer every call the way a provider answers an account out of credit or quota. */
  spendLimit?: boolean;
  /** Usage each scripted answer reports. */
  usage?: Usage;
}

export const startMockModel = async (opts: MockOptions): Promise<MockModel> => {
  const requests: ScriptedRequest[] = [];
  const unexpected: string[] = [];
  const usage = opts.usage ?? { input: 1000, output: 50 };
  let seq = 0;

  const answer = (wire: Wire, body: Record<string, unknown>, res: ServerResponse) => {
    if (opts.spendLimit) {
      refuseForLimit(wire, res);
      return;
    }
    const msgs = conversation(wire, body);
    const pos = position(msgs);
    const tools = toolNames(wire, body);
    seq++;
    // Side requests (a title, a summary) carry no tools or no task prompt: answer them plainly, free.
    if (pos.turn < 0 || tools.length === 0) {
      return stream(wire, body, res, { text: 'ok' }, { input: 0, output: 0 }, seq, tools);
    }
    const turn = opts.script
      ? opts.script({ task: pos.task, prompt: pos.prompt, turn: pos.turn })
      : (opts.turns[Math.min(pos.turn, opts.turns.length - 1)] ?? []);
    const step = turn[pos.step] ?? { text: 'Nothing more to do.' };
    if ('shell' in step && !shellCall(tools, step.shell)) {
      unexpected.push(`${wire}: the request offers no shell tool (${tools.join(', ')})`);
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"no shell tool"}}');
      return;
    }
    requests.push({
      wire,
      turn: pos.turn,
      step: pos.step,
      usage,
      carriesTask: pos.carriesTask,
      toolResults: pos.results,
    });
    stream(wire, body, res, step, usage, seq, tools);
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length ? rec(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : {};
      } catch {
        unexpected.push(`${req.method} ${path}: body is not JSON`);
        res.writeHead(400).end();
        return;
      }
      if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":100}');
      } else if (req.method === 'POST' && path.endsWith('/messages')) answer('anthropic', body, res);
      else if (req.method === 'POST' && path.endsWith('/responses')) answer('responses', body, res);
      else if (req.method === 'POST' && path.endsWith('/chat/completions')) answer('chat', body, res);
      else if (req.method === 'POST' && /^\/v1beta\/models\/[^/]+:countTokens$/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"totalTokens":100}');
      } else if (
        req.method === 'POST' &&
        /^\/v1beta\/models\/[^/]+:(?:stream)?[gG]enerateContent$/.test(path)
      )
        answer('gemini', { ...body, stream: path.endsWith(':streamGenerateContent') }, res);
      else if (req.method === 'HEAD' && path === '/') {
        // claude probes the base URL before its first call.
        res.writeHead(200).end();
      } else if (req.method === 'GET' && path.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
      } else {
        unexpected.push(`${req.method} ${path}`);
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let down = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    unexpected,
    reported: () =>
      requests.reduce((t, r) => ({ input: t.input + r.usage.input, output: t.output + r.usage.output }), {
        input: 0,
        output: 0,
      }),
    goDown: () => {
      if (down) return;
      down = true;
      server.close();
      server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        if (down) resolve();
        else server.close(() => resolve());
      }),
  };
};

/** The providers' own words for an account that may not spend more. */
const refuseForLimit = (wire: Wire, res: ServerResponse): void => {
  if (wire === 'gemini') {
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          code: 429,
          message:
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
          status: 'RESOURCE_EXHAUSTED',
        },
      }),
    );
    return;
  }
  const body =
    wire === 'anthropic'
      ? {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message:
              'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
          },
        }
      : {
          error: {
            message: 'You exceeded your current quota, please check your plan and billing details.',
            type: 'insufficient_quota',
            param: null,
            code: 'insufficient_quota',
          },
        };
  res.writeHead(wire === 'anthropic' ? 400 : 429, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const sse = (res: ServerResponse, events: { event?: string; data: unknown }[]): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) {
    res.write(
      `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    );
  }
  res.end();
};

const stream = (
  wire: Wire,
  body: Record<string, unknown>,
  res: ServerResponse,
  step: Step,
  usage: Usage,
  seq: number,
  tools: string[],
) => {
  const model = str(body.model) || 'mock-model';
  const call = 'shell' in step ? shellCall(tools, step.shell) : undefined;
  if (wire === 'gemini') {
    const text = 'text' in step ? step.text : '';
    const answer = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [call ? { functionCall: { name: call.name, args: call.args } } : { text }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: usage.input,
        candidatesTokenCount: usage.output,
        totalTokenCount: usage.input + usage.output,
      },
      modelVersion: model,
      responseId: `resp_${seq}`,
    };
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      return;
    }
    return sse(res, [{ data: answer }]);
  }
  if (wire === 'anthropic') {
    const block = call
      ? { type: 'tool_use', id: `toolu_${seq}`, name: call.name, input: {} }
      : { type: 'text', text: '' };
    const delta = call
      ? { type: 'input_json_delta', partial_json: JSON.stringify(call.args) }
      : { type: 'text_delta', text: 'text' in step ? step.text : '' };
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `msg_${seq}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [
            call ? { ...block, input: call.args } : { type: 'text', text: 'text' in step ? step.text : '' },
          ],
          stop_reason: call ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: usage.input, output_tokens: usage.output },
        }),
      );
      return;
    }
    return sse(res, [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id: `msg_${seq}`,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: usage.input, output_tokens: 0 },
          },
        },
      },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: block } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
          usage: { output_tokens: usage.output },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  }
  if (wire === 'responses') {
    const id = `resp_${seq}`;
    const item = call
      ? {
          type: 'function_call',
          id: `fc_${seq}`,
          call_id: `call_${seq}`,
          name: call.name,
          arguments: JSON.stringify(call.args),
          status: 'completed',
        }
      : {
          type: 'message',
          id: `msg_${seq}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'text' in step ? step.text : '', annotations: [] }],
        };
    return sse(res, [
      {
        event: 'response.created',
        data: { type: 'response.created', response: { id, status: 'in_progress' } },
      },
      {
        event: 'response.output_item.added',
        data: { type: 'response.output_item.added', output_index: 0, item },
      },
      {
        event: 'response.output_item.done',
        data: { type: 'response.output_item.done', output_index: 0, item },
      },
      {
        event: 'response.completed',
        data: {
          type: 'response.completed',
          response: {
            id,
            status: 'completed',
            output: [item],
            usage: {
              input_tokens: usage.input,
              input_tokens_details: { cached_tokens: 0 },
              output_tokens: usage.output,
              output_tokens_details: { reasoning_tokens: 0 },
              total_tokens: usage.input + usage.output,
            },
          },
        },
      },
    ]);
  }
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}) => ({
    data: {
      id: `chatcmpl-${seq}`,
      object: 'chat.completion.chunk',
      created: 0,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    },
  });
  return sse(res, [
    chunk({ role: 'assistant', content: '' }, null),
    call
      ? chunk(
          {
            tool_calls: [
              {
                index: 0,
                id: `call_${seq}`,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.args) },
              },
            ],
          },
          null,
        )
      : chunk({ content: 'text' in step ? step.text : '' }, null),
    chunk({}, call ? 'tool_calls' : 'stop'),
    {
      data: {
        id: `chatcmpl-${seq}`,
        object: 'chat.completion.chunk',
        created: 0,
        model,
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      },
    },
    { data: '[DONE]' },
  ]);
};
