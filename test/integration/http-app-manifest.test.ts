// app.yml is what GitHub registers: its events must be real webhook event names (as GitHub's OpenAPI
// description sends them in X-GitHub-Event), cover every event intake follows, and ask only for
// permissions GitHub knows.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAppManifest } from '../../src/config/app-manifest.ts';
import { githubEvents } from '../../src/intake/github/normalize.ts';

const doc = JSON.parse(readFileSync('node_modules/@octokit/openapi/generated/api.github.com.json', 'utf8'));

const webhookEventNames = (): Set<string> => {
  const names = new Set<string>();
  for (const item of Object.values(
    doc['x-webhooks'] as Record<string, { post?: { parameters?: unknown[] } }>,
  )) {
    for (const p of item.post?.parameters ?? []) {
      const param = p as { name?: string; example?: unknown };
      if (param.name?.toLowerCase() === 'x-github-event' && typeof param.example === 'string')
        names.add(param.example);
    }
  }
  return names;
};

describe('app.yml', () => {
  const manifest = loadAppManifest('app.yml');

  it('subscribes to real webhook events, including every one intake follows', () => {
    const known = webhookEventNames();
    for (const e of manifest.default_events) expect(known, `unknown event ${e}`).toContain(e);
    expect([...manifest.default_events].sort()).toEqual([...githubEvents].sort());
  });

  it('asks for issues, pull requests, contents, checks and statuses write, metadata and actions read, and nothing unknown', () => {
    const permissions = Object.keys(doc.components.schemas['app-permissions'].properties);
    for (const name of Object.keys(manifest.default_permissions)) expect(permissions).toContain(name);
    expect(manifest.default_permissions).toEqual({
      issues: 'write',
      pull_requests: 'write',
      contents: 'write',
      metadata: 'read',
      // The PR feedback loop (issue 21): the bot's own `blitz` check, the head's statuses, Actions job logs;
      // statuses write: the `blitz` report as a commit status where checks cannot be written (issue 37).
      checks: 'write',
      statuses: 'write',
      actions: 'read',
    });
  });
});
