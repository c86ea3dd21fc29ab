// The real agent CLIs of the compatibility tier: where scripts/install-agents.ts put each release
// (pinned in src/runner/tools/tested-versions.ts, or the newest with --latest), and how each is
// pointed at the loopback mock model. The CLIs run in the workers' bubblewrap sandbox, as on a default
// host: their HOME is the sandbox's own (per attempt), so everything reaches them as an operator's
// roster entry gives it there: environment variables, a config file its environment names (shown
// read-only), or `args`. A fake API key; nothing here reaches a real provider: every base URL is the mock's.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { type RosterEntry, rosterEntrySchema } from '../../src/config/blitz-config.ts';
import { type TestedTool, testedVersions } from '../../src/runner/tools/tested-versions.ts';
import { tempDir } from '../support/git.ts';

export const agentTools = ['claude', 'codex', 'opencode', 'gemini', 'qwen'] as const;
export type AgentTool = (typeof agentTools)[number];

export type Pin = TestedTool;

export const cacheDir = resolve('.cache/agents');
/** Written by the install script: which version of each tool this run uses (pinned or latest). */
export const selectedFile = join(cacheDir, 'selected.json');

export const readPins = (): Record<AgentTool, Pin> => testedVersions;

const selectedSchema = z.record(
  z.string(),
  z.object({
    version: z.string(),
    binDir: z.string(),
    pathPrepend: z.array(z.string()),
    /** The environment pointing the CLI at what it would otherwise fetch at run time (seed-runtime.ts). */
    env: z.record(z.string(), z.string()).default({}),
  }),
);
export type Selected = z.infer<typeof selectedSchema>[string];

/** The installed CLI for a tool, or why it is not there. */
export const installed = (tool: AgentTool): Selected | { missing: string } => {
  if (!existsSync(selectedFile)) return { missing: 'run `npm run test:agents` (it installs the CLIs first)' };
  const sel = selectedSchema.parse(JSON.parse(readFileSync(selectedFile, 'utf8')))[tool];
  if (!sel) return { missing: `${tool} was not installed` };
  return sel;
};

export const MODEL = 'mock-model';

/**
 * The roster entry of one tool against the mock at `url`: environment, args and a config file of its
 * own per call; sessions live in the sandbox's HOME of each attempt, never another's. `seeded` is the
 * environment naming what the install seeded for the CLI's run time; `dir` holds its config files.
 */
export const agentEntry = (
  tool: AgentTool,
  url: string,
  seeded: Record<string, string> = {},
  dir: string = tempDir(`blitz-${tool}-config-`),
): RosterEntry => {
  const env: Record<string, string> = { ...seeded };
  let args: string[] | undefined;
  if (tool === 'claude') {
    Object.assign(env, {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'sk-ant-mock-key-for-loopback-only',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    });
  } else if (tool === 'codex') {
    // codex keeps its sessions in CODEX_HOME (default ~/.codex, the sandbox's HOME): the provider comes
    // as `-c` overrides of config.toml instead of a file there.
    args = [
      ['model', MODEL],
      ['model_provider', 'mock'],
      ['model_providers.mock.name', 'mock'],
      ['model_providers.mock.base_url', `${url}/v1`],
      ['model_providers.mock.env_key', 'MOCK_MODEL_API_KEY'],
      ['model_providers.mock.wire_api', 'responses'],
      ['model_providers.mock.request_max_retries', 1],
      ['model_providers.mock.stream_max_retries', 1],
    ].flatMap(([k, v]) => ['-c', `${k}=${JSON.stringify(v)}`]);
    Object.assign(env, { MOCK_MODEL_API_KEY: 'mock-key-for-loopback-only' });
  } else if (tool === 'gemini') {
    // An API key and a base URL: gemini's "gateway" auth; its settings in a file its environment names.
    const file = join(dir, 'gemini-settings.json');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      }),
    );
    Object.assign(env, {
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: file,
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_API_KEY: 'mock-key-for-loopback-only',
    });
  } else if (tool === 'qwen') {
    // The OpenAI-compatible provider, as a DashScope or a local endpoint is configured.
    const file = join(dir, 'qwen-settings.json');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({
        security: { auth: { selectedType: 'openai' } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true },
      }),
    );
    Object.assign(env, {
      QWEN_CODE_SYSTEM_SETTINGS_PATH: file,
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: 'mock-key-for-loopback-only',
      OPENAI_MODEL: MODEL,
    });
  } else {
    const file = join(dir, 'opencode.json');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        model: `mock/${MODEL}`,
        provider: {
          mock: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Mock',
            options: { baseURL: `${url}/v1`, apiKey: 'mock-key-for-loopback-only' },
            models: { [MODEL]: { name: 'Mock model', tool_call: true } },
          },
        },
      }),
    );
    Object.assign(env, {
      OPENCODE_CONFIG: file,
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_SHARE: '1',
    });
  }
  return rosterEntrySchema.parse({
    name: `${tool}-compat`,
    tool,
    ...(tool === 'opencode' ? { provider: 'mock' } : {}),
    model: MODEL,
    roles: ['blitz', 'fleet'],
    tiers: ['execution'],
    env,
    ...(args ? { args } : {}),
  });
};
