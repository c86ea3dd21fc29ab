// No container engine runs here, so the Dockerfile and compose.yaml are checked as files: every path
// they copy or mount exists and is not ignored, the image builds dist with `npm run build` and runs
// package.json's `bin` with `npm start`'s node flags, git and bubblewrap are in the runtime, bot and runner run as one non-root user
// that nothing in the image can make root (workers are sandboxed), the healthcheck asks /healthz, and compose
// wires PostgreSQL, two bot replicas and one runner consistently (secrets, env, ports, service names).
// The runner image seeds what opencode would fetch at run time where the compose config points it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { opencodeConfigHome } from '../../scripts/seed-runtime.ts';
import { parseBlitzConfig } from '../../src/config/blitz-config.ts';
import { testedVersions } from '../../src/runner/tools/tested-versions.ts';
import { botServices, compose, containerEnv, hostPathOf, runnerServices } from '../support/compose-file.ts';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

interface Instruction {
  stage: string;
  op: string;
  args: string;
}

/** Instructions with line continuations joined and comments dropped, each tagged with its stage. */
const dockerfile = (text: string): Instruction[] => {
  const lines = text.split('\n').filter((l) => !/^\s*#/.test(l));
  const joined = lines.join('\n').replace(/\\\n/g, ' ').split('\n');
  let stage = '';
  const out: Instruction[] = [];
  for (const line of joined) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, op, args] = m as unknown as [string, string, string];
    if (op === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? '';
    out.push({ stage, op, args: args.trim() });
  }
  return out;
};

const instructions = dockerfile(read('Dockerfile'));
const inStage = (stage: string, op: string) => instructions.filter((i) => i.stage === stage && i.op === op);
const execForm = (args: string): string[] => z.array(z.string()).parse(JSON.parse(args));
const dockerignore = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim().replace(/^\//, ''))
  .filter((l) => l && !l.startsWith('#'));
const ignored = (path: string) => dockerignore.some((p) => path === p || path.startsWith(`${p}/`));

const packageJson = z
  .object({ bin: z.record(z.string(), z.string()), scripts: z.record(z.string(), z.string()) })
  .parse(JSON.parse(read('package.json')));

/** The node flags `npm start` gives tsx (the heap's size): the image runs node with the same. */
const startFlags = packageJson.scripts.start!.split(/\s+/).filter((a) => a.startsWith('--'));

describe('Dockerfile', () => {
  it('has a build stage, a bot runtime and a runner target, on the same base', () => {
    const base = '$' + '{NODE_IMAGE}';
    expect(instructions.filter((i) => i.op === 'FROM').map((i) => i.args)).toEqual([
      `${base} AS build`,
      `${base} AS bot`,
      'bot AS runner',
    ]);
  });

  it('copies only files that exist in the repository and that .dockerignore lets through', () => {
    const sources = instructions
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(4);
    for (const src of sources) {
      expect(existsSync(join(root, src)), src).toBe(true);
      expect(ignored(src.replace(/\/$/, '')), `${src} is in .dockerignore`).toBe(false);
    }
  });

  it('builds dist with npm run build from tsconfig.build.json, copying what the build script reads', () => {
    const run = inStage('build', 'RUN').map((i) => i.args);
    expect(run).toContain('npm run build && npm prune --omit=dev --no-audit --no-fund');
    expect(packageJson.scripts.build).toBe('tsc -p tsconfig.build.json && node scripts/build-assets.mjs');
    const copied = inStage('build', 'COPY').flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    for (const needed of ['tsconfig.json', 'tsconfig.build.json', 'scripts/build-assets.mjs', 'src'])
      expect(copied, needed).toContain(needed);
    expect(inStage('bot', 'COPY').map((i) => i.args)).toEqual(
      expect.arrayContaining([
        '--from=build /app/node_modules ./node_modules',
        '--from=build /app/dist ./dist',
      ]),
    );
  });

  it("runs package.json bin with node and npm start's node flags, serve by default", () => {
    const [entry] = inStage('bot', 'ENTRYPOINT');
    expect(execForm(entry!.args)).toEqual(['node', ...startFlags, packageJson.bin['blitz-bot']]);
    expect(execForm(inStage('bot', 'CMD')[0]!.args)).toEqual(['serve']);
    expect(execForm(inStage('runner', 'CMD')[0]!.args)).toEqual(['runner']);
  });

  it('has git in the runtime image', () => {
    const install = inStage('bot', 'RUN').find((i) => i.args.includes('apt-get install'));
    expect(install?.args).toMatch(/apt-get install -y --no-install-recommends [^&]*\bgit\b/);
  });

  it('has bubblewrap in the runtime image, which the runner and the bot sandbox workers and gates with', () => {
    const install = inStage('bot', 'RUN').find((i) => i.args.includes('apt-get install'));
    expect(install?.args).toMatch(/apt-get install -y --no-install-recommends [^&]*\bbubblewrap\b/);
    // The compose layout's config refuses to start rather than run workers unsandboxed.
    const config = z
      .object({ runner: z.object({ sandbox: z.literal('bubblewrap') }).passthrough() })
      .parse(parse(read('docker/blitz.config.yml')));
    expect(config.runner).not.toHaveProperty('user');
  });

  it('runs the bot and the runner as one non-root user, and nothing in the image can make it root', () => {
    const users = inStage('bot', 'RUN')
      .flatMap((i) => [...i.args.matchAll(/useradd [^&]*--uid (\d+) [^&]* (\S+)\s*(?:&&|$)/g)])
      .map((m) => ({ uid: Number(m[1]), name: m[2]! }));
    expect(users.map((u) => u.name)).toEqual(['blitz']);
    expect(users[0]!.uid).toBeGreaterThan(0);
    expect(inStage('bot', 'USER').map((i) => i.args)).toEqual(['blitz']);
    expect(
      inStage('runner', 'USER')
        .map((i) => i.args)
        .at(-1),
    ).toBe('blitz');
    // No file capabilities, no setuid bit, no copy of node that holds either: workers are kept apart
    // by bubblewrap's user namespaces, which need no privilege of the runner.
    const text = instructions.map((i) => i.args).join('\n');
    expect(text).not.toMatch(/\bsetcap\b|libcap2-bin|chmod [^&]*[ugo]*\+s\b|chmod [0-7]*[4-7][0-7]{3}\b/);
    expect(text).not.toMatch(/node-runner/);
    expect(execForm(inStage('runner', 'ENTRYPOINT').at(-1)!.args)).toEqual([
      'node',
      ...startFlags,
      packageJson.bin['blitz-bot'],
    ]);
    expect(read('Dockerfile')).not.toMatch(/sudo/);
  });

  it('checks health on /healthz, and only the bot target has an HTTP server to check', () => {
    const [health] = inStage('bot', 'HEALTHCHECK');
    expect(health?.args).toContain("'/healthz'");
    expect(inStage('runner', 'HEALTHCHECK').map((i) => i.args)).toEqual(['NONE']);
  });

  it('adds the agent CLIs from the npm registry at the tested versions (tested-versions.ts)', () => {
    const args = inStage('runner', 'ARG').map((i) => i.args);
    const pins = Object.values(testedVersions);
    expect(args).toEqual(pins.map((p) => `${p.dockerArg}=${p.version}`));
    const install = inStage('runner', 'RUN')[0]!.args;
    for (const p of pins) expect(install).toContain(`${p.package}@\${${p.dockerArg}}`);
    expect(install).toContain('npm install --global');
  });
});

describe('runner image without the registry', () => {
  it('seeds opencode’s run-time package at build time where the compose roster points XDG_CONFIG_HOME', () => {
    const runs = inStage('runner', 'RUN').map((i) => i.args);
    const seeds = runs.flatMap((r) => {
      const m =
        /node --experimental-strip-types scripts\/seed-runtime\.ts opencode "\$\{OPENCODE_VERSION\}" (\/\S+)/.exec(
          r,
        );
      return m ? [{ run: r, dir: m[1]! }] : [];
    });
    expect(seeds).toHaveLength(1);
    const [seed] = seeds;
    // After the CLIs are installed (the seed is opencode's own version), skipped with opencode left
    // out, and no npm cache left in the image.
    expect(runs.indexOf(seed!.run)).toBeGreaterThan(
      runs.findIndex((r) => r.includes('npm install --global')),
    );
    expect(seed!.run).toMatch(/^if \[ -n "\$\{OPENCODE_VERSION\}" \]; then /);
    expect(seed!.run).toContain('npm cache clean --force');
    // The script it runs is copied into the image where the RUN finds it (the runner's WORKDIR).
    expect(inStage('runner', 'COPY').map((i) => i.args)).toContain('scripts/seed-runtime.ts ./scripts/');
    expect(instructions.filter((i) => i.op === 'WORKDIR').map((i) => i.args)).toEqual(['/app', '/app']);
    // Seeded as root, so workers (the blitz user) can read it but not write it: opencode leaves a
    // config directory it cannot write alone.
    const order = instructions
      .filter((i) => i.stage === 'runner' && (i.op === 'USER' || i.op === 'RUN'))
      .map((i) => (i.op === 'USER' ? i.args : i.args === seed!.run ? 'seed' : 'run'));
    expect(order).toEqual(['root', 'run', 'seed', 'blitz']);
    // Node strips the script's types from 22.6 on; the image's Node is newer.
    const nodeImage = /^ARG NODE_IMAGE=node:(\d+)/m.exec(read('Dockerfile'))?.[1];
    expect(Number(nodeImage)).toBeGreaterThanOrEqual(22);

    const config = parseBlitzConfig(read('docker/blitz.config.yml'), 'docker/blitz.config.yml');
    const opencode = config.roster.filter((e) => e.tool === 'opencode');
    expect(opencode.map((e) => e.name)).toEqual(['opencode']);
    for (const e of opencode) {
      expect(e.env?.XDG_CONFIG_HOME, e.name).toBe(opencodeConfigHome(seed!.dir));
      expect(e.env?.OPENCODE_DISABLE_AUTOUPDATE, e.name).toBe('1');
    }
  });

  it('says so in README, with the path the seed makes', () => {
    const readme = read('README.md');
    expect(readme).toMatch(/The runner image is seeded for a runner without the npm registry/);
    const dir = /seed-runtime\.ts opencode \S+ (\/\S+)/.exec(
      inStage('runner', 'RUN')
        .map((i) => i.args)
        .join('\n'),
    )?.[1];
    expect(readme).toContain(`\`${opencodeConfigHome(dir!)}\``);
  });
});

describe('README', () => {
  it('lists each tested release as tested-versions.ts pins it, and the Dockerfile example uses it', () => {
    const readme = read('README.md');
    for (const [tool, p] of Object.entries(testedVersions))
      expect(readme, tool).toMatch(
        new RegExp(`^\\| ${tool} \\| \`${p.package}\` \\| ${p.version.replace(/\./g, '\\.')}\\b`, 'm'),
      );
    const example = /--build-arg CLAUDE_CODE_VERSION=(\S+)/.exec(read('Dockerfile'))?.[1];
    expect(example).toBe(testedVersions.claude.version);
  });
});

describe('compose.yaml', () => {
  const { services } = compose;
  const bots = botServices;
  const runners = runnerServices;
  const stages = new Set(instructions.filter((i) => i.op === 'FROM').map((i) => /AS (\S+)/.exec(i.args)![1]));

  it('has PostgreSQL, two bot replicas serving and one runner, built from the Dockerfile’s targets', () => {
    expect(services.postgres?.image).toMatch(/^postgres:\d+/);
    expect(bots.map(([name, s]) => [name, s.command])).toEqual([
      ['bot-a', ['serve']],
      ['bot-b', ['serve']],
    ]);
    expect(runners.map(([name, s]) => [name, s.command?.[0]])).toEqual([['runner', 'runner']]);
    for (const [, s] of [...bots, ...runners])
      expect(stages.has(s.build!.target), s.build!.target).toBe(true);
  });

  it('runs the bots and the runner under an init, which reaps the workers and gates they orphan', () => {
    for (const [name, s] of [...bots, ...runners]) expect(s.init, name).toBe(true);
  });

  it('lets bubblewrap make its user namespaces in the bots and the runner, adding no capability', () => {
    for (const [name, s] of [...bots, ...runners])
      expect(s.security_opt, name).toEqual(['seccomp=unconfined']);
    expect(read('compose.yaml')).not.toMatch(/cap_add|privileged/);
  });

  it('points every replica at the postgres service, after it is healthy, with the schema the init script makes', () => {
    const init = read('docker/postgres-init.sql');
    for (const [name, s] of bots) {
      const url = s.environment?.DATABASE_URL ?? '';
      expect(url, name).toMatch(
        /^postgres:\/\/blitz:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/blitz\?schema=blitz$/,
      );
      expect(s.depends_on?.postgres?.condition, name).toBe('service_healthy');
      expect(s.environment?.BLITZ_LOCAL_RUNNER, name).toBe('false');
    }
    expect(init).toContain('CREATE SCHEMA IF NOT EXISTS blitz');
    expect(services.postgres?.environment).toMatchObject({ POSTGRES_USER: 'blitz', POSTGRES_DB: 'blitz' });
  });

  it('gives secrets as files: the bots read them from ./secrets, the runner only its own token', () => {
    // Every forge on, as ./.env would turn it on: each file variable then names a file.
    const vars = { POSTGRES_PASSWORD: 'pw', GITEA_URL: 'https://gitea.example', APP_ID: '1' };
    const dirs = { project: '/project', volumes: '/volumes' };
    for (const [name, s] of bots) {
      expect(s.volumes, name).toContain('./secrets:/run/secrets:ro');
      const env = containerEnv(s, vars);
      // BLITZ_ENV_FILE is not a secret's: it is on the settings volume (container-forges.test.ts).
      const files = Object.entries(env).filter(
        ([k]) => (k.endsWith('_FILE') && k !== 'BLITZ_ENV_FILE') || k === 'PRIVATE_KEY_PATH',
      );
      expect(files.map(([k]) => k).sort(), name).toEqual([
        'GITEA_TOKEN_FILE',
        'GITEA_WEBHOOK_SECRET_FILE',
        'PRIVATE_KEY_PATH',
        'STATUS_TOKEN_FILE',
        'WEBHOOK_SECRET_FILE',
      ]);
      for (const [key, value] of files)
        expect(hostPathOf(s, value, dirs), `${name} ${key}`).toMatch(/^\/project\/secrets\/[a-z_]+$/);
      expect(s.secrets, name).toBeUndefined();
    }
    const [, runner] = runners[0]!;
    expect(runner.secrets).toEqual(['runner_token']);
    expect(runner.environment?.BLITZ_RUNNER_TOKEN_FILE).toBe('/run/secrets/runner_token');
    expect(runner.volumes?.some((v) => v.startsWith('./secrets'))).toBe(false);
    for (const [name, s] of Object.entries(services)) {
      // No forge secret is ever given as a plain variable.
      for (const key of [
        'GITEA_TOKEN',
        'GITEA_WEBHOOK_SECRET',
        'STATUS_TOKEN',
        'WEBHOOK_SECRET',
        'PRIVATE_KEY',
      ])
        expect(s.environment?.[key], `${name} ${key}`).toBeUndefined();
    }
    for (const s of Object.values(compose.secrets)) expect(s.file).toMatch(/^\.\/secrets\/[a-z_]+$/);
    expect(read('.gitignore')).toContain('/secrets/');
    expect(read('.dockerignore')).toContain('/secrets');
  });

  it('mounts the config file it names, and every mounted file exists', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const v of s.volumes ?? []) {
        const [from] = v.split(':');
        // ./secrets is the operator's, kept out of git (and out of the image).
        if (from === './secrets') continue;
        if (from!.startsWith('./')) expect(existsSync(join(root, from!)), `${name}: ${from}`).toBe(true);
        else expect(compose.volumes, `${name}: volume ${from}`).toHaveProperty(from!);
      }
    }
    for (const [name, s] of [...bots, ...runners]) {
      const mounted = (s.volumes ?? []).find((v) => v.endsWith(':/etc/blitz/blitz.config.yml:ro'));
      expect(mounted, name).toBe('./docker/blitz.config.yml:/etc/blitz/blitz.config.yml:ro');
    }
    for (const [name, s] of bots)
      expect(s.environment?.BLITZ_CONFIG, name).toBe('/etc/blitz/blitz.config.yml');
    const runner = runners[0]![1].command!;
    expect(runner[runner.indexOf('--config') + 1]).toBe('/etc/blitz/blitz.config.yml');
  });

  it('sends the runner to one address every replica answers, giving no forge secret to it', () => {
    const [, runner] = runners[0]!;
    const server = new URL(runner.command![runner.command!.indexOf('--server') + 1]!);
    // A network alias all the replicas carry (Docker's DNS answers it with those that are up), and
    // not the name of one of them.
    expect(Object.keys(services)).not.toContain(server.hostname);
    for (const [name, s] of bots) {
      expect(s.networks?.default?.aliases, name).toContain(server.hostname);
      expect(server.port, name).toBe(s.environment?.PORT);
      expect(runner.depends_on?.[name], name).toEqual({ condition: 'service_started' });
    }
    for (const [name, s] of Object.entries(services))
      if (s.build?.target !== 'bot') expect(s.networks, name).toBeUndefined();
    // Its own token, as a file; never a forge secret.
    expect(runner.command).not.toContain('--token');
    expect(
      Object.keys(runner.environment ?? {}).every((k) =>
        /^(ANTHROPIC|OPENAI)_|^BLITZ_RUNNER_TOKEN_FILE$/.test(k),
      ),
    ).toBe(true);
  });
});
