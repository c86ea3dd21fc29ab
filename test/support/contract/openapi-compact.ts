// GitHub's OpenAPI document is 13 MB of pretty-printed JSON, most of it words for people
// (descriptions, summaries, examples) that a contract check never reads; parsing and converting it
// cost each test process about a second. `compactOpenApi` keeps what the checks use: each
// operation's id, parameters, request body and responses, its category and documentation URL (what a
// fake's refusal names), and the components they refer to, without
// the keywords that validate nothing. `loadOpenApi` reads a document through a compact copy cached
// under node_modules/.cache, keyed by the file's size and mtime and this code's version; the vitest
// global setup (test/support/contract/prepare.ts) writes it once before the test processes start.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toJsonSchema } from './openapi-schema.ts';

type Json = Record<string, unknown>;

/** Raise when what `compactOpenApi` keeps changes: older cached copies are then not read. */
const VERSION = 3;
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head'];
/** Keywords for people and tools: no schema, parameter or response is checked by them. */
const DROP = new Set(['description', 'summary', 'example', 'examples', 'externalDocs', 'tags', 'title']);

/** Drops DROP keywords and `x-…` extensions, but never a property that is merely named like one. */
export const stripForChecks = (node: unknown, propertyMap = false): unknown => {
  if (Array.isArray(node)) return node.map((n) => stripForChecks(n));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (!propertyMap && (DROP.has(key) || key.startsWith('x-'))) continue;
    out[key] = stripForChecks(value, !propertyMap && key === 'properties');
  }
  return out;
};

/**
 * What the contract checks read of a document: operations by path and method, components (as
 * written, for parameters and bodies by reference) and `componentsAsJsonSchema`, the same converted
 * for ajv.
 */
export const compactOpenApi = (doc: Json): Json => {
  const paths: Record<string, Json> = {};
  for (const [template, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    const methods: Json = {};
    for (const m of METHODS) {
      const op = item[m] as Json | undefined;
      if (!op) continue;
      const { operationId, parameters, requestBody, responses } = op;
      // GitHub's category of the operation (which App permission it needs) and its page, for the
      // fake's refusals (fake-github/app-permissions.ts).
      const x = op['x-github'] as Json | undefined;
      const docs = op.externalDocs as Json | undefined;
      methods[m] = {
        ...(stripForChecks({ operationId, parameters, requestBody, responses }) as Json),
        ...(x ? { 'x-github': { category: x.category, subcategory: x.subcategory } } : {}),
        ...(typeof docs?.url === 'string' ? { externalDocs: { url: docs.url } } : {}),
      };
    }
    paths[template] = methods;
  }
  const { examples: _unread, ...rest } = (doc.components ?? {}) as Json;
  const components = stripForChecks(rest);
  return { paths, components, componentsAsJsonSchema: toJsonSchema(components, false) };
};

const cacheDir = (): string =>
  fileURLToPath(new URL('../../../node_modules/.cache/blitz-bot-contracts', import.meta.url));

const cachedCopyOf = (file: string): string => {
  const s = statSync(file);
  return join(cacheDir(), `${basename(file, '.json')}-${s.size}-${Math.trunc(s.mtimeMs)}-v${VERSION}.json`);
};

const writeCompact = (file: string, cached: string): Json => {
  const compact = compactOpenApi(JSON.parse(readFileSync(file, 'utf8')) as Json);
  try {
    mkdirSync(cacheDir(), { recursive: true });
    // Written aside and renamed: a process reading at the same time sees all of it or nothing.
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(compact));
    renameSync(partial, cached);
  } catch {
    // A read-only tree: every process compacts for itself, as slowly as before.
  }
  return compact;
};

/** The compact form of the document in `file`, from the cached copy when there is one (else written). */
export const loadOpenApi = (file: string): Json => {
  const cached = cachedCopyOf(file);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as Json;
  } catch {
    return writeCompact(file, cached);
  }
};

/** Writes the cached compact copy of `file` unless it is there (the global setup's part). */
export const prepareOpenApi = (file: string): void => {
  const cached = cachedCopyOf(file);
  if (!existsSync(cached)) writeCompact(file, cached);
};
