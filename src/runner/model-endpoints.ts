// The endpoints a worker of a roster entry needs under `runner.network: model-only`: its tool's model
// API (by tool, or by provider for opencode, aider and qwen), every host a `*_BASE_URL`, `*_API_BASE` or
// `OLLAMA_HOST` setting of its environment names (a local model server, a gateway), and the entry's
// own `endpoints`. Pure: the operator's config and environment in, `host:port` strings out.
import type { RosterEntry } from '../config/blitz-config.ts';
import { endpointOfUrl, normalEndpoint } from './model-proxy.ts';

const ANTHROPIC = 'api.anthropic.com:443';
const OPENAI = 'api.openai.com:443';

const byProvider: Record<string, string[]> = {
  anthropic: [ANTHROPIC],
  openai: [OPENAI],
  openrouter: ['openrouter.ai:443'],
  google: ['generativelanguage.googleapis.com:443'],
  gemini: ['generativelanguage.googleapis.com:443'],
  mistral: ['api.mistral.ai:443'],
  deepseek: ['api.deepseek.com:443'],
  groq: ['api.groq.com:443'],
};

const providerOf = (e: Pick<RosterEntry, 'model' | 'provider'>): string | undefined =>
  e.provider ?? (e.model?.includes('/') ? e.model.split('/')[0] : undefined);

const toolDefaults = (e: Pick<RosterEntry, 'tool' | 'model' | 'provider'>): string[] => {
  switch (e.tool) {
    case 'claude':
      return [ANTHROPIC];
    case 'codex':
      return [OPENAI];
    case 'gemini':
      return byProvider.gemini!;
    case 'qwen':
      // OpenAI's API unless OPENAI_BASE_URL names another (DashScope, a gateway): added below.
      return byProvider[providerOf(e) ?? 'openai'] ?? [];
    case 'opencode':
    case 'aider':
      return byProvider[providerOf(e) ?? ''] ?? [];
    default:
      return [];
  }
};

const URL_SETTING = /(?:_BASE_URL|_API_BASE|^OLLAMA_HOST)$/;

export const modelEndpoints = (
  entry: Pick<RosterEntry, 'tool' | 'model' | 'provider' | 'endpoints'>,
  env: Record<string, string>,
): string[] => {
  const out = new Set(toolDefaults(entry));
  for (const [name, value] of Object.entries(env)) {
    if (!URL_SETTING.test(name)) continue;
    // OLLAMA_HOST may be a bare host:port.
    const e = endpointOfUrl(value) ?? endpointOfUrl(`http://${value}`);
    if (e) out.add(e);
  }
  for (const e of entry.endpoints ?? []) {
    const n = normalEndpoint(e);
    if (n) out.add(n);
  }
  return [...out].sort();
};
