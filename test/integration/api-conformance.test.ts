// The API's answers against its own document: every (route, method, status) that /api/v1/openapi.json
// documents is asked for here, and each answer's status, content type and body are checked against
// what the document says (the body by Ajv, JSON Schema 2020-12, with the document's components). A
// documented answer without a request here fails, and so does a request here the document does not
// describe, so the two cannot drift apart unseen.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgeWebLinks } from '../../src/forges/web-links.ts';
import { finishedRunId, liveRunId } from '../fixtures/runs/finished-run.ts';
import { createStatusApp, type StatusApp, statusToken } from '../fixtures/runs/status-app.ts';

// ajv-formats is CommonJS; its default export is the function under ESM interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface MediaType {
  schema: unknown;
}
interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, MediaType> }> }>
  >;
  components: unknown;
}

const bearer = { authorization: `Bearer ${statusToken}` };
/** Which app answers: the API on (token set), or off (no STATUS_TOKEN). */
type Case = { url: string; headers?: Record<string, string>; app?: 'on' | 'off' };

// One request per documented answer, keyed `METHOD path status` as the document names them.
const cases: Record<string, Case> = {
  'get /runs 200': { url: '/runs?live=true', headers: bearer },
  'get /runs 400': { url: '/runs?live=maybe', headers: bearer },
  'get /runs 401': { url: '/runs' },
  'get /runs 404': { url: '/runs', headers: bearer, app: 'off' },
  'get /runs/{id} 200': { url: `/runs/${finishedRunId}`, headers: bearer },
  'get /runs/{id} 400': { url: '/runs/a.b', headers: bearer },
  'get /runs/{id} 401': { url: `/runs/${finishedRunId}`, headers: { authorization: 'Bearer wrong' } },
  'get /runs/{id} 404': { url: '/runs/nope', headers: bearer },
  'get /runs/{id}/attempts/{n} 200': { url: `/runs/${finishedRunId}/attempts/1`, headers: bearer },
  'get /runs/{id}/attempts/{n} 400': { url: `/runs/${finishedRunId}/attempts/0`, headers: bearer },
  'get /runs/{id}/attempts/{n} 401': { url: `/runs/${finishedRunId}/attempts/1` },
  'get /runs/{id}/attempts/{n} 404': { url: `/runs/${finishedRunId}/attempts/99`, headers: bearer },
  'get /stats 200': { url: `/stats?run=${liveRunId}`, headers: bearer },
  'get /stats 400': { url: '/stats?run=a.b', headers: bearer },
  'get /stats 401': { url: '/stats', headers: { accept: 'text/html' } },
  'get /stats 404': { url: '/stats?run=nope', headers: bearer },
};

let on: StatusApp;
let off: StatusApp;
let doc: OpenApiDoc;
let ajv: Ajv2020;

beforeAll(async () => {
  // With forge links, so the issues' url and prUrl are strings the document must describe.
  on = await createStatusApp({ links: forgeWebLinks({ github: 'https://github.com' }) });
  off = await createStatusApp({ token: undefined });
  doc = (await (await on.app.request('/api/v1/openapi.json')).json()) as OpenApiDoc;
  ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ $id: 'openapi', components: doc.components });
});
afterAll(async () => {
  await on.close();
  await off.close();
});

/** `#/components/…` references made absolute, so a response's schema resolves against the document. */
const anchored = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components/', '"$ref":"openapi#/components/'));

const documented = (): string[] =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, op]) =>
      Object.keys(op.responses).map((status) => `${method} ${path} ${status}`),
    ),
  );

describe('/api/v1 against /api/v1/openapi.json', () => {
  it('has a request here for every documented answer, and documents every answer asked for here', () => {
    expect(Object.keys(cases).sort()).toEqual(documented().sort());
  });

  it.each(Object.keys(cases))('%s: status, content type and body as documented', async (key) => {
    const [method, path, status] = key.split(' ') as [string, string, string];
    const c = cases[key]!;
    const res = await (c.app === 'off' ? off : on).app.request(`/api/v1${c.url}`, {
      method: method.toUpperCase(),
      headers: c.headers ?? {},
    });
    expect(res.status).toBe(Number(status));
    const content = doc.paths[path]![method]!.responses[status]!.content ?? {};
    const [mediaType, media] = Object.entries(content)[0] ?? [];
    expect(mediaType, 'a documented media type').toBe('application/json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
    const validate = ajv.compile(anchored(media!.schema) as object);
    const body: unknown = await res.json();
    expect(validate(body) ? [] : validate.errors, JSON.stringify(body).slice(0, 300)).toEqual([]);
  });
});
