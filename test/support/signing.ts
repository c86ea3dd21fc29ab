// Real signed webhook requests for tests and the benchmark: HMAC-SHA256 computed here with node:crypto
// (independently of the code under test), GitHub's payloads from @octokit/webhooks-examples and the
// hand-made fixtures under test/fixtures/.
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const hmacHex = (secret: string, body: string): string =>
  createHmac('sha256', secret).update(body).digest('hex');

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

export const signedGithubRequest = (opts: {
  secret: string;
  event: string;
  payload: unknown;
  deliveryId?: string;
  /** Send as `application/x-www-form-urlencoded` with a `payload=` field, as GitHub can. */
  form?: boolean;
}): SignedRequest => {
  const json = JSON.stringify(opts.payload);
  const body = opts.form ? new URLSearchParams({ payload: json }).toString() : json;
  return {
    body,
    headers: {
      'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-github-event': opts.event,
      'x-github-delivery': opts.deliveryId ?? randomUUID(),
      // GitHub signs the body exactly as sent.
      'x-hub-signature-256': `sha256=${hmacHex(opts.secret, body)}`,
    },
  };
};

export const signedGiteaRequest = (opts: {
  secret: string;
  /** X-Gitea-Event-Type, e.g. issue_comment, pull_request_comment, issue_label. */
  eventType: string;
  /** X-Gitea-Event, the coarse event; defaults to the type. */
  event?: string;
  payload: unknown;
  deliveryId?: string;
  form?: boolean;
}): SignedRequest => {
  const json = JSON.stringify(opts.payload);
  return {
    body: opts.form ? new URLSearchParams({ payload: json }).toString() : json,
    headers: {
      'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-gitea-event': opts.event ?? opts.eventType,
      'x-gitea-event-type': opts.eventType,
      'x-gitea-delivery': opts.deliveryId ?? randomUUID(),
      // Gitea signs the JSON payload, also when it is carried in a form field.
      'x-gitea-signature': hmacHex(opts.secret, json),
    },
  };
};

interface ExampleGroup {
  name: string;
  examples: { action?: string }[];
}

let examples: ExampleGroup[] | undefined;

/** The n-th example of an event (and action) from @octokit/webhooks-examples, deep-copied. */
export const githubExample = (event: string, action?: string, n = 0): Record<string, unknown> => {
  examples ??= JSON.parse(
    readFileSync(join(root, 'node_modules/@octokit/webhooks-examples/api.github.com/index.json'), 'utf8'),
  ) as ExampleGroup[];
  const group = examples.find((g) => g.name === event);
  const matching = (group?.examples ?? []).filter((e) => action === undefined || e.action === action);
  const found = matching[n];
  if (!found) throw new Error(`no webhooks-examples payload for ${event}.${action ?? '*'} #${n}`);
  return structuredClone(found) as Record<string, unknown>;
};

/** A hand-made fixture: test/fixtures/<forge>/<name>.json, deep-copied. */
export const fixture = (forge: 'github' | 'gitea', name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(root, 'test', 'fixtures', forge, `${name}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
