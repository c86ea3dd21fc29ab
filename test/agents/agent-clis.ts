// The real agent CLIs of the compatibility tier: where scripts/install-agents.ts put each release
// (pinned in src/runner/tools/tested-versions.ts, or the newest with --latest), and how each is
// pointed at the loopback mock model: its own HOME per attempt, configuration files written there, and a fake API key. Nothing here reaches a
// real provider: every base URL is the mock's.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { type RosterEntry, rosterEntrySchema } from '../../src/config/blitz-config.ts';
import { type TestedTool, testedVersions } from '../../src/runner/tools/tested-versions.ts';
import { tempDir } from '../support/git.ts';

export const agentTools = ['claude', 'codex', 'opencode'] as const;
export type AgentTool = (typeof agentTools)[number];

export type Pin = TestedTool;

export const cacheDir = resolve('.cache/agents');
/** Written by the install script: which version of each tool this run uses (pinned or latest). */
export const selectedFile = join(cacheDir, 'selected.json');

export const readPins = (): Record<AgentTool, Pin> => testedVersions;

const selectedSchema = z.record(
  z.string(),
  z.object({ version: z.string(), binDir: z.string(), pathPrepend: z.array(z.string()) }),
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
 * The roster entry and environment of one tool against the mock at `url`: HOME is new per call, so
 * sessions and settings of one attempt are never another's.
 */
export const agentEntry = (tool: AgentTool, url: string): RosterEntry => {
  const home = tempDir(`blitz-${tool}-home-`);
  const env: Record<string, string> = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
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
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        `model = "${MODEL}"`,
        'model_provider = "mock"',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = "${url}/v1"`,
        'env_key = "MOCK_MODEL_API_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 1',
        'stream_max_retries = 1',
        '',
      ].join('\n'),
    );
    Object.assign(env, { CODEX_HOME: codexHome, MOCK_MODEL_API_KEY: 'mock-key-for-loopback-only' });
  } else {
    const dir = join(home, '.config', 'opencode');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'opencode.json'),
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
  });
};
