// Doctor's check of a roster entry's credentials: the API key variables its tool reads, as the
// worker gets them (the runner's allowlisted environment plus the entry's own `env`), or the login
// file the CLI keeps in the worker's HOME. Only names are printed, never a value. Which variables and
// files each CLI reads was taken from the CLIs themselves (their docs, and the gemini and qwen bundles).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RosterEntry } from '../config/blitz-config.ts';
import { type CheckResult, fail, ok } from './checks.ts';

/** One way a tool can be given its credentials: any of the variables, or any of the files. */
interface Need {
  vars: string[];
  /** Paths under the worker's HOME (a login the CLI saved). */
  files: string[];
  /** Said when nothing is found: what else would do. */
  also?: string;
}

/** opencode's and aider's provider names → the variable their provider SDK reads. */
const providerKeys: Record<string, string[]> = {
  anthropic: ['ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY'],
  google: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
  groq: ['GROQ_API_KEY'],
  mistral: ['MISTRAL_API_KEY'],
  deepseek: ['DEEPSEEK_API_KEY'],
};
const anyProviderKey = [...new Set(Object.values(providerKeys).flat())];

const set = (env: Record<string, string>, name: string): boolean => (env[name] ?? '') !== '';

/** The variable a codex `config.toml` names for its provider's key (`env_key = "…"`), if any. */
const codexEnvKeys = (configToml: string): string[] => {
  if (!existsSync(configToml)) return [];
  return [...readFileSync(configToml, 'utf8').matchAll(/^\s*env_key\s*=\s*"([A-Za-z_][A-Za-z0-9_]*)"/gm)].map(
    (m) => m[1]!,
  );
};

/**
 * What the entry's tool needs, or a sentence when it needs nothing or its own way is not ours to check.
 */
const needOf = (entry: RosterEntry, env: Record<string, string>, home: string): Need | string => {
  switch (entry.tool) {
    case 'claude':
      if (set(env, 'CLAUDE_CODE_USE_BEDROCK') || set(env, 'CLAUDE_CODE_USE_VERTEX'))
        return 'Bedrock or Vertex AI: the cloud provider’s own credentials, not checked here';
      return {
        vars: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
        files: ['.claude/.credentials.json'],
        also: '`claude setup-token` as the worker user',
      };
    case 'codex': {
      const codexHome = env.CODEX_HOME || join(home, '.codex');
      return {
        vars: ['OPENAI_API_KEY', 'CODEX_API_KEY', ...codexEnvKeys(join(codexHome, 'config.toml'))],
        files: [join(codexHome, 'auth.json')],
        also: '`codex login` as the worker user',
      };
    }
    case 'opencode': {
      const data = env.XDG_DATA_HOME || join(home, '.local', 'share');
      return {
        vars: entry.provider ? (providerKeys[entry.provider] ?? []) : anyProviderKey,
        files: [join(data, 'opencode', 'auth.json')],
        also:
          entry.provider && !providerKeys[entry.provider]
            ? `a key for provider ${entry.provider} in opencode.json, or \`opencode auth login\``
            : '`opencode auth login` as the worker user',
      };
    }
    case 'gemini':
      return {
        vars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS'],
        files: ['.gemini/oauth_creds.json'],
        also: 'a login with `gemini` as the worker user',
      };
    case 'qwen':
      return {
        vars: ['OPENAI_API_KEY'],
        files: ['.qwen/settings.json'],
        also: 'a provider configured in ~/.qwen/settings.json',
      };
    case 'aider':
      if (entry.provider === 'ollama') return 'a local Ollama model: no key';
      return {
        vars: entry.provider ? (providerKeys[entry.provider] ?? anyProviderKey) : anyProviderKey,
        files: ['.aider.conf.yml', '.env'],
      };
    case 'ollama':
      return 'review only, a local Ollama model: no key';
    case 'custom':
      return 'a custom tool: its credentials are its own, not checked here';
  }
};

/**
 * The credential check of one entry: `env` is the worker's environment, `home` its HOME, undefined
 * when workers run sandboxed (each gets a fresh HOME, so no login kept in one is seen). A missing
 * credential is a problem naming the variables, and the login file that would do.
 */
export const checkCredentials = (
  entry: RosterEntry,
  env: Record<string, string>,
  home: string | undefined,
): CheckResult => {
  const subject = `roster ${entry.name} (${entry.tool})`;
  const need = needOf(entry, env, home ?? '/nonexistent');
  if (typeof need === 'string') return ok(subject, `credentials: ${need}`);
  const vars = need.vars.filter((v) => set(env, v));
  if (vars.length > 0) return ok(subject, `credentials: ${vars.join(', ')} set for the worker`);
  const names = need.vars.length > 0 ? `set ${need.vars.join(' or ')} for the runner` : undefined;
  if (home === undefined)
    return fail(
      subject,
      `no credentials found: ${names ?? 'give its key in the entry’s env'} (workers run sandboxed with a fresh HOME, so a CLI login is not seen)`,
    );
  const files = need.files.map((f) => (f.startsWith('/') ? f : join(home, f)));
  const found = files.find((f) => existsSync(f));
  if (found) return ok(subject, `credentials: ${found}`);
  const ways = [names, `log in as the worker user (${files.join(' or ')} is missing)`, need.also].filter(
    Boolean,
  );
  return fail(subject, `no credentials found: ${ways.join('; or ')}`);
};
