// compose.yaml as the container tests read it (no container engine runs here): the file parsed with its
// merge keys, compose's `${…}` interpolation over a given ./.env, and where a path inside a service
// lands on the host once its volumes are mounted (a bind mount's source, or one directory per named
// volume), so a test can give the bot the environment and the files a container would see.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

const root = join(import.meta.dirname, '..', '..');

const service = z.looseObject({
  image: z.string().optional(),
  build: z.object({ context: z.string(), target: z.string() }).optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  secrets: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
  ports: z.array(z.string()).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  security_opt: z.array(z.string()).optional(),
  init: z.boolean().optional(),
  networks: z.record(z.string(), z.object({ aliases: z.array(z.string()).optional() })).optional(),
});
export type ComposeService = z.infer<typeof service>;

export const compose = z
  .object({
    services: z.record(z.string(), service),
    secrets: z.record(z.string(), z.object({ file: z.string() })),
    volumes: z.record(z.string(), z.null()),
  })
  .parse(parse(readFileSync(join(root, 'compose.yaml'), 'utf8'), { merge: true }));

export const botServices = Object.entries(compose.services).filter(([, s]) => s.build?.target === 'bot');
export const runnerServices = Object.entries(compose.services).filter(
  ([, s]) => s.build?.target === 'runner',
);

/**
 * Compose's interpolation of one value: `${X}`, `${X:-default}`, `${X-default}`, `${X:+alt}`,
 * `${X+alt}` and `${X:?message}` (which refuses to start when X is unset or empty).
 */
export const interpolate = (value: string, vars: Record<string, string>): string =>
  value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-+?])([^}]*))?\}/g,
    (_m, name: string, colon: string, op: string | undefined, arg: string) => {
      const v = vars[name];
      const set = colon ? v !== undefined && v !== '' : v !== undefined;
      if (op === '-') return set ? v! : arg;
      if (op === '+') return set ? arg : '';
      if (op === '?' && !set) throw new Error(`compose refuses to start: ${arg}`);
      return v ?? '';
    },
  );

/** A service's environment as the container gets it, from the variables of ./.env. */
export const containerEnv = (s: ComposeService, vars: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(v, vars)]));

/**
 * Where a path inside the service lies on the host: under the source of the volume mounted on it
 * (`./x` is `<project>/x`, a named volume `<volumes>/<name>`); undefined when no volume holds it.
 */
export const hostPathOf = (
  s: ComposeService,
  path: string,
  dirs: { project: string; volumes: string },
): string | undefined => {
  const mounts = (s.volumes ?? []).map((v) => {
    const [source = '', target = ''] = v.split(':');
    return { source, target };
  });
  const m = mounts
    .filter((x) => path === x.target || path.startsWith(`${x.target}/`))
    .sort((a, b) => b.target.length - a.target.length)[0];
  if (!m) return undefined;
  const base = m.source.startsWith('./')
    ? join(dirs.project, m.source.slice(2))
    : join(dirs.volumes, m.source);
  return join(base, path.slice(m.target.length));
};
