// The agent CLI releases the compatibility tier (`npm run test:agents`) proves the built-in adapters
// against: the one place the versions are pinned. scripts/install-agents.ts installs exactly these
// from the npm registry; `blitz-bot doctor` compares an installed CLI with them; README lists them.
// claude 2.1.197 is the newest release whose engines accept Node 20 (later ones want Node 22).

export interface TestedTool {
  /** npm package the CLI ships in. */
  package: string;
  version: string;
  /** The executable the adapter starts. */
  bin: string;
}

export const testedVersions = {
  claude: { package: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { package: '@openai/codex', version: '0.171.0', bin: 'codex' },
  opencode: { package: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
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
