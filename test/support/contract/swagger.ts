// A small contract checker for Swagger 2.0 documents (Gitea's API description): it matches a
// request to an operation by the document's path templates, checks path, query and JSON body
// parameters, and checks a response against the operation's response schema. Schemas are compiled
// lazily per operation and cached. Request bodies are checked with unknown properties forbidden:
// Gitea silently ignores a misspelt field, so a request carrying one is the adapter's bug.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Json = Record<string, unknown>;

export interface SwaggerParameter {
  name: string;
  in: 'path' | 'query' | 'body' | 'header' | 'formData';
  required?: boolean;
  type?: string;
  enum?: unknown[];
  schema?: Json;
  collectionFormat?: string;
  items?: { type?: string; enum?: unknown[] };
}

export interface SwaggerOperation {
  method: string;
  template: string;
  operationId: string;
  parameters: SwaggerParameter[];
  responses: Record<string, Json>;
  produces?: string[];
}

export interface MatchedRequest {
  operation: SwaggerOperation;
  pathParams: Record<string, string>;
}

interface CompiledPath {
  template: string;
  regex: RegExp;
  names: string[];
  literalLength: number;
}

/** Path parameters that Gitea's router lets span slashes (its swagger cannot say so). */
const wildcardParams = new Set(['filepath']);

const compilePath = (template: string): CompiledPath => {
  const names: string[] = [];
  let literalLength = 0;
  const source = template.replace(/\{([^}]+)\}|[^{]+/g, (part, name: string | undefined) => {
    if (name) {
      names.push(name);
      return wildcardParams.has(name) ? '(.+)' : '([^/]+?)';
    }
    literalLength += part.length;
    return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  });
  return { template, regex: new RegExp(`^${source}$`), names, literalLength };
};

/** Swagger 2.0 → JSON Schema: `x-nullable` becomes a null alternative; strict mode closes objects. */
const convertSchema = (node: unknown, strict: boolean): unknown => {
  if (Array.isArray(node)) return node.map((n) => convertSchema(n, strict));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    out[k] =
      k === 'properties' ? mapValues(v as Json, (s) => convertSchema(s, strict)) : convertSchema(v, strict);
  }
  if (typeof out.$ref === 'string') out.$ref = `gitea.json${out.$ref}`;
  if (strict && out.type === 'object' && out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  if (out['x-nullable'] === true) return { anyOf: [out, { type: 'null' }] };
  return out;
};

const mapValues = (obj: Json, f: (v: unknown) => unknown): Json =>
  Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v)]));

const formatErrors = (validate: ValidateFunction, where: string): string[] =>
  (validate.errors ?? []).map(
    (e) =>
      `${where}${e.instancePath || ''} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );

export class SwaggerContract {
  readonly basePath: string;
  private readonly paths: CompiledPath[];
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    this.basePath = typeof doc.basePath === 'string' ? doc.basePath : '';
    this.paths = Object.keys(doc.paths as Json)
      .map(compilePath)
      .sort((a, b) => b.literalLength - a.literalLength);
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
    this.ajv.addFormat('int32', { type: 'number', validate: Number.isInteger });
    this.ajv.addSchema({ definitions: convertSchema(doc.definitions, true) }, 'gitea.json');
  }

  static fromFile(file: string): SwaggerContract {
    return new SwaggerContract(JSON.parse(readFileSync(file, 'utf8')) as Json);
  }

  private compile(key: string, schema: unknown): ValidateFunction {
    const hit = this.cache.get(key);
    if (hit) return hit;
    const validate = this.ajv.compile(convertSchema(schema, true) as Json);
    this.cache.set(key, validate);
    return validate;
  }

  private operation(template: string, method: string): SwaggerOperation | undefined {
    const item = (this.doc.paths as Record<string, Record<string, Json>>)[template];
    const op = item?.[method.toLowerCase()];
    if (!op) return undefined;
    const shared = (item.parameters as unknown as SwaggerParameter[] | undefined) ?? [];
    return {
      method: method.toUpperCase(),
      template,
      operationId: String(op.operationId),
      parameters: [...shared, ...((op.parameters as SwaggerParameter[] | undefined) ?? [])],
      responses: op.responses as Record<string, Json>,
      produces: op.produces as string[] | undefined,
    };
  }

  /** The operation for a method and a path below basePath, preferring the most literal template whose path params are valid. */
  match(method: string, path: string): MatchedRequest | undefined {
    for (const p of this.paths) {
      const m = p.regex.exec(path);
      if (!m) continue;
      const operation = this.operation(p.template, method);
      if (!operation) continue;
      const pathParams = Object.fromEntries(p.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
      const bad = operation.parameters
        .filter((x) => x.in === 'path')
        .some((x) => scalarError(x, pathParams[x.name]) !== undefined);
      if (!bad) return { operation, pathParams };
    }
    return undefined;
  }

  /** Every way the request breaks the document; empty when it conforms. */
  validateRequest(req: {
    method: string;
    path: string;
    query: URLSearchParams;
    body: unknown;
    hasBody: boolean;
  }): { match?: MatchedRequest; errors: string[] } {
    const match = this.match(req.method, req.path);
    if (!match) return { errors: [`${req.method} ${req.path}: no such operation in the API description`] };
    const { operation } = match;
    const where = `${operation.method} ${operation.template} (${operation.operationId})`;
    const errors: string[] = [];
    const declared = new Set(operation.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const name of new Set(req.query.keys())) {
      if (!declared.has(name))
        errors.push(`${where}: query parameter "${name}" is not in the API description`);
    }
    for (const p of operation.parameters) {
      if (p.in === 'query') {
        const values = req.query.getAll(p.name);
        if (values.length === 0 && p.required) errors.push(`${where}: query "${p.name}" is required`);
        const multi = p.type === 'array' && p.collectionFormat === 'multi';
        if (values.length > 1 && !multi)
          errors.push(`${where}: query "${p.name}" given ${values.length} times`);
        const item = multi && p.items ? { ...p, ...p.items, required: p.required } : p;
        for (const value of multi ? values : values.slice(0, 1)) {
          const err = scalarError(item, value);
          if (err) errors.push(`${where}: query "${p.name}" ${err}`);
        }
      }
    }
    const bodyParam = operation.parameters.find((p) => p.in === 'body');
    if (!bodyParam && req.hasBody) errors.push(`${where}: takes no request body`);
    if (bodyParam && !req.hasBody && bodyParam.required) errors.push(`${where}: request body is required`);
    if (bodyParam?.schema && req.hasBody) {
      const validate = this.compile(`req ${where}`, bodyParam.schema);
      if (!validate(req.body)) errors.push(...formatErrors(validate, `${where}: body`));
    }
    return { match, errors };
  }

  /** Every way the response breaks the document: an undeclared status or a body off its schema. */
  validateResponse(operation: SwaggerOperation, status: number, body: unknown): string[] {
    const where = `${operation.method} ${operation.template} (${operation.operationId}) → ${status}`;
    let response = operation.responses[String(status)];
    if (!response) return [`${where}: status not in the API description`];
    if (typeof response.$ref === 'string') {
      const name = response.$ref.replace('#/responses/', '');
      response = (this.doc.responses as Record<string, Json>)[name] ?? {};
    }
    if (!response.schema) return [];
    const validate = this.compile(`res ${where}`, response.schema);
    return validate(body) ? [] : formatErrors(validate, `${where}: body`);
  }
}

/** Check a path or query value against a simple (non-body) Swagger parameter. */
const scalarError = (p: SwaggerParameter, value: string | undefined): string | undefined => {
  if (value === undefined || value === '') return p.required ? 'is required' : undefined;
  if (p.type === 'integer' && !/^-?\d+$/.test(value)) return `must be an integer, got "${value}"`;
  if (p.type === 'boolean' && value !== 'true' && value !== 'false')
    return `must be a boolean, got "${value}"`;
  if (p.enum && !p.enum.includes(value)) return `must be one of ${p.enum.join(', ')}, got "${value}"`;
  return undefined;
};
