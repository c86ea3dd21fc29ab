// The GitHub App manifest in app.yml: read for the registration page (GET /probot), checked just
// enough to fail in words when the file is broken. app.yml ships beside package.json, so it is found
// from this module's own place (src/config/ or dist/config/), not from wherever the bot was started.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { AppError } from '../errors.ts';

export const appManifestSchema = z
  .object({
    name: z.string().min(1).max(34),
    url: z.string().url(),
    default_events: z.array(z.string()).min(1),
    default_permissions: z.record(z.string(), z.enum(['read', 'write'])),
  })
  .passthrough();

export type AppManifest = z.infer<typeof appManifestSchema>;

/** app.yml of this package: two levels above this module in the checkout and in dist/. */
export const packageAppManifest = fileURLToPath(new URL('../../app.yml', import.meta.url));

export const loadAppManifest = (path = packageAppManifest): AppManifest => {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new AppError('config_invalid', `${path}: cannot read the GitHub App manifest`, {}, { cause });
  }
  const parsed = appManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError('config_invalid', `${path}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
};
