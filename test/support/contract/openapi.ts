// Checks HTTP requests and responses against an OpenAPI 3.0 description (GitHub's api.github.com
// document from @octokit/openapi). The fakes call it for every exchange, so a request the real API
// would not accept, or a response the real API would not send, fails the test instead of passing
// silently. Schemas are converted (`nullable`) and compiled lazily per operation, then cached: the
// GitHub document is 13 MB and a test touches a few dozen operations. Files are read through their
// compact cached form (openapi-compact.ts), which checks the same.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { loadOpenApi } from './openapi-compact.ts';
import { toJsonSchema } from './openapi-schema.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Json = Record<string, unknown>;

export interface Operation {
  operationId: string;
  method: string;
  template: string;
  def: Json;
}

export interface MatchedRequest {
  operation: Operation;
  pathParams: Record<string, string>;
}

export interface RequestToCheck {
  method: string;
  /** Raw pathname (percent-encoded), without the API prefix. */
  path: string;
  query: URLSearchParams;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

interface Route {
  template: string;
  literals: number;
  regex: RegExp;
  greedy: RegExp;
  names: string[];
  methods: Record<string, Json>;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head'];

const routeOf = (template: string, methods: Record<string, Json>): Route => {
  const names: string[] = [];
  const segments = template.split('/').filter(Boolean);
  const parts = segments.map((s) => {
    const m = /^\{(.+)\}$/.exec(s);
    if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    names.push(m[1]!);
    return '([^/]+)';
  });
  // Only a trailing file path may span segments (`contents/{path}` with unencoded slashes).
  const last = parts.length - 1;
  const greedyParts = parts.map((p, i) => (i === last && segments[i] === '{path}' ? '(.+)' : p));
  return {
    template,
    literals: segments.length - names.length,
    regex: new RegExp(`^/${parts.join('/')}$`),
    greedy: new RegExp(`^/${greedyParts.join('/')}$`),
    names,
    methods,
  };
};

export class OpenApiContract {
  private readonly routes: Route[];
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    const paths = (doc.paths ?? {}) as Record<string, Json>;
    this.routes = Object.entries(paths)
      .map(([template, item]) => {
        const methods: Record<string, Json> = {};
        for (const m of METHODS) if (item[m]) methods[m.toUpperCase()] = item[m] as Json;
        return routeOf(template, methods);
      })
      .sort((a, b) => b.literals - a.literals);
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
    addFormats(this.ajv);
    // A compact document (openapi-compact.ts) carries its components converted already.
    const components = doc.componentsAsJsonSchema ?? toJsonSchema(doc.components ?? {}, false);
    this.ajv.addSchema({ $id: 'doc', components });
  }

  private static loaded = new Map<string, OpenApiContract>();

  /** One parsed document per file for the whole test process. */
  static fromFile(file: string): OpenApiContract {
    let contract = OpenApiContract.loaded.get(file);
    if (!contract) {
      contract = new OpenApiContract(loadOpenApi(file));
      OpenApiContract.loaded.set(file, contract);
    }
    return contract;
  }

  /** The operation for a method and raw path, or undefined when the document has none. */
  match(method: string, path: string): MatchedRequest | undefined {
    const upper = method.toUpperCase();
    for (const pass of ['regex', 'greedy'] as const) {
      for (const route of this.routes) {
        const def = route.methods[upper];
        const m = route[pass].exec(path);
        if (!def || !m) continue;
        const pathParams: Record<string, string> = {};
        route.names.forEach((n, i) => {
          pathParams[n] = decodeURIComponent(m[i + 1]!);
        });
        const operation = {
          operationId: String(def.operationId),
          method: upper,
          template: route.template,
          def,
        };
        return { operation, pathParams };
      }
    }
    return undefined;
  }

  /** Resolve a local `#/…` reference in the raw document. */
  private deref(node: Json): Json {
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    let at: unknown = this.doc;
    for (const key of ref.replace(/^#\//, '').split('/')) at = (at as Json)[key.replace(/~1/g, '/')];
    return at as Json;
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(toJsonSchema(schema, true) as Json);
      this.cache.set(key, fn);
    }
    return fn;
  }

  private errorsOf(fn: ValidateFunction): string {
    return this.ajv.errorsText(fn.errors, { dataVar: '' });
  }

  /** Every problem with a request, in words; an empty list means the real API would accept it. */
  checkRequest(req: RequestToCheck): { matched?: MatchedRequest; problems: string[] } {
    const matched = this.match(req.method, req.path);
    if (!matched) return { problems: [`${req.method} ${req.path} is not in the API description`] };
    const { operation, pathParams } = matched;
    const problems: string[] = [];
    const params = ((operation.def.parameters ?? []) as Json[]).map((p) => this.deref(p));
    const queryNames = new Set<string>();
    for (const p of params) {
      const name = String(p.name);
      const where = p.in;
      if (where !== 'path' && where !== 'query') continue;
      if (where === 'query') queryNames.add(name);
      const raw = where === 'path' ? pathParams[name] : (req.query.get(name) ?? undefined);
      if (raw === undefined) {
        if (p.required) problems.push(`missing required ${where} parameter "${name}"`);
        continue;
      }
      const fn = this.validator(`${operation.operationId}:param:${name}`, p.schema ?? {});
      if (!fn(coerce(raw, p.schema as Json | undefined)))
        problems.push(`${where} parameter "${name}"=${JSON.stringify(raw)}${this.errorsOf(fn)}`);
    }
    for (const name of new Set(req.query.keys()))
      if (!queryNames.has(name)) problems.push(`unknown query parameter "${name}"`);

    const requestBody = operation.def.requestBody ? this.deref(operation.def.requestBody as Json) : undefined;
    const content = requestBody?.content as Record<string, Json> | undefined;
    const schema = content?.['application/json']?.schema;
    if (req.body === undefined) {
      if (requestBody?.required) problems.push('missing required JSON body');
    } else if (!schema) {
      problems.push('the operation takes no JSON body');
    } else {
      const fn = this.validator(`${operation.operationId}:body`, schema);
      if (!fn(req.body)) problems.push(`body${this.errorsOf(fn)}`);
    }
    return { matched, problems };
  }

  /** Problems with a response the fake is about to send (its own bug when non-empty). */
  checkResponse(operation: Operation, status: number, body: unknown, contentType: string): string[] {
    const responses = (operation.def.responses ?? {}) as Record<string, Json>;
    const declared = responses[String(status)] ?? responses.default;
    if (!declared) return [`status ${status} is not a documented response of ${operation.operationId}`];
    const response = this.deref(declared);
    const content = response.content as Record<string, Json> | undefined;
    if (!content)
      return body === undefined ? [] : [`status ${status} of ${operation.operationId} has no body`];
    if (!contentType.includes('json')) return [];
    const schema = content['application/json']?.schema;
    if (!schema) return [`status ${status} of ${operation.operationId} has no JSON body`];
    const fn = this.validator(`${operation.operationId}:response:${status}`, schema);
    return fn(body) ? [] : [`response ${status} of ${operation.operationId}${this.errorsOf(fn)}`];
  }
}

/** Query and path values arrive as strings; the schema says what they mean. */
const coerce = (raw: string, schema: Json | undefined): unknown => {
  const type = schema?.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (type === 'array') return raw.split(',');
  return raw;
};
