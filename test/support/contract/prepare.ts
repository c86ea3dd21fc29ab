// Vitest global setup: writes the compact cached copy of GitHub's OpenAPI document once, before the
// test processes start, so that none of them parses the 13 MB original (openapi-compact.ts).
import { createRequire } from 'node:module';
import { prepareOpenApi } from './openapi-compact.ts';

export const githubOpenApiFile = (): string =>
  createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

export default function setup(): void {
  prepareOpenApi(githubOpenApiFile());
}
