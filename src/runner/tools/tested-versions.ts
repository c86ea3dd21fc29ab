// The agent CLI releases the compatibility tier (`npm run test:agents`) proves the built-in adapters
// against: the one place the versions are pinned. scripts/install-agents.ts installs exactly these
// from the npm registry; `blitz-bot doctor` compares an installed CLI with them; README lists them;
// the Dockerfile's runner stage installs them (its ARG defaults; test/integration/container-files.test.ts
// holds both to these). claude ships a native binary since 2.1.x: its `engines` (Node 22) do not
// concern the Node that runs the bot, and the tier runs it with this Node on PATH.

export interface TestedTool {
  /** npm package the CLI ships in. */
  package: string;
  version: string;
  /** The executable the adapter starts. */
  bin: string;
  /** The Dockerfile's build argument holding this version (runner stage). */
  dockerArg: string;
}

export const testedVersions = {
  claude: {
    package: '@anthropic-ai/claude-code',
    version: '2.1.332',
    bin: 'claude',
    dockerArg: 'CLAUDE_CODE_VERSION',
  },
  codex: { package: '@openai/codex', version: '0.171.0', bin: 'codex', dockerArg: 'CODEX_VERSION' },
  opencode: { package: 'opencode-ai', version: '1.18.33', bin: 'opencode', dockerArg: 'OPENCODE_VERSION' },
  gemini: {
    package: '@google/gemini-cli',
    version: '0.61.0',
    bin: 'gemini',
    dockerArg: 'GEMINI_CLI_VERSION',
  },
  qwen: { package: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen', dockerArg: 'QWEN_CODE_VERSION' },
} as const satisfies Record<string, TestedTool>;

export type TestedToolName = keyof typeof testedVersions;

/** `[major, minor, patch]` of the first dotted version in a `--version` line, e.g. "codex-cli 0.171.0". */
export const versionOf = (text: string): [number, number, number] | undefined => {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
};

/** -1, 0 or 1 as `a` is older than, the same as, or newer than `b`. */
export const compareVersions = (a: readonly number[], b: readonly number[]): number => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0) ? -1 : 1;
  return 0;
};
