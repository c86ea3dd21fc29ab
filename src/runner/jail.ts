// Where a worker-side process runs: under the worker's uid (when the runner switches users) and inside
// its sandbox (when one is configured). Everything that runs or reads a worker's repository (the agent
// CLI, the build/smoke/preview gates, the runner's own reads of the worker's commits) is started through
// a jail, so nothing a worker controls ever runs as the runner or sees the runner's files.
//
// The bubblewrap jail shows a process the toolchain read-only (/usr, /etc, the lib and bin links, node,
// every PATH directory, the program its argv names and any file its argv names), its own writable paths,
// a private /tmp, its own /dev and /proc (its own PID namespace: no other process of the host is
// visible or can be signalled), and nothing else: the bot's data directory, database, `.env`, config and
// secret files are hidden even where they lie inside a directory it shows.
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { probeSync } from './exec.ts';
import { ModelProxies, PROXY_SOCKET } from './model-proxy.ts';
import type { WorkerUser } from './worker-user.ts';

export interface JailPlace {
  /** The directory the process starts in. */
  cwd: string;
  /** The only paths the process may write (its repository, its HOME, its scratch space). */
  writable: readonly string[];
  /** The worker's private HOME. */
  home: string;
  /**
   * Under `runner.network: model-only`, the `host:port` endpoints the process may reach through the
   * runner's proxy (none: no network at all). Ignored with `network: full`.
   */
  endpoints?: readonly string[];
  /** The host's network whatever `runner.network` says (a preview serves the LAN). */
  hostNetwork?: boolean;
  /** No network at all whatever `runner.network` says (the runner's reads of a worker's repository). */
  offline?: boolean;
  /**
   * Paths shown read-only besides the toolchain (a worktree's git directory). One inside a writable
   * path is shown read-only there (a worktree's `.git` file: the process cannot point it elsewhere).
   */
  readable?: readonly string[];
  /** The process goes on when the one that started it ends (a preview outlives the bot's restart). */
  outlivesParent?: boolean;
}

export interface WorkerJail {
  /** What the dashboard, the log and `doctor` say about the workers' containment. */
  readonly kind: 'bubblewrap' | 'none';
  /** The worker's OS user, when the runner starts workers as another uid (`runner.user`). */
  readonly user?: WorkerUser;
  /** argv rewritten to run inside the sandbox at `place` (unchanged where there is no sandbox). */
  wrap(argv: readonly string[], place: JailPlace): string[];
  /** Makes ready what `wrap` at `place` relies on (the model-only proxy for its endpoints). */
  prepare?(place: JailPlace): Promise<void>;
  /** Stops what the jail runs itself (the proxies); workers already started keep running. */
  close?(): Promise<void>;
}

export type SandboxKind = WorkerJail['kind'];
export type NetworkKind = 'full' | 'model-only';

/** The jail of `runner.sandbox: none`: the uid switch (spawn's uid/gid) and nothing else. */
export const plainJail = (user?: WorkerUser): WorkerJail => ({
  kind: 'none',
  ...(user ? { user } : {}),
  wrap: (argv) => [...argv],
});

const inside = (path: string, dir: string): boolean => path === dir || path.startsWith(dir + sep);

const realOrNull = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/** Where argv[0] is: itself when it names a path, else the first PATH directory holding it. */
const locate = (file: string, cwd: string, path: string | undefined): string | undefined => {
  if (file.includes('/')) return resolve(cwd, file);
  for (const d of (path ?? '').split(delimiter)) {
    if (d && isAbsolute(d) && existsSync(join(d, file))) return join(d, file);
  }
  return undefined;
};

/**
 * The directories a program needs to run: its own directory, and for a program inside an npm install
 * (`…/node_modules/.bin/claude` → `…/node_modules/@anthropic-ai/claude-code/cli.js`) that whole
 * `node_modules`, where its modules and vendored binaries live.
 */
export const programDirs = (program: string): string[] => {
  const out = new Set<string>();
  for (const p of [program, realOrNull(program)]) {
    if (!p) continue;
    const at = p.indexOf(`${sep}node_modules${sep}`);
    out.add(at >= 0 ? p.slice(0, at + `${sep}node_modules`.length) : dirname(p));
  }
  return [...out];
};

/**
 * Whether `uid`/`gid` can reach `path` by its mode bits (every directory above it searchable, itself
 * readable): bubblewrap, started as the worker, fails on a path it cannot reach (a PATH entry under
 * /root). Supplementary groups and ACLs are not consulted: a path they alone open is left out.
 */
export const reachableBy = (path: string, who: { uid: number; gid: number }): boolean => {
  const allows = (p: string, bits: number): boolean => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) return false;
    if (st.isSymbolicLink()) return true;
    const shift = st.uid === who.uid ? 6 : st.gid === who.gid ? 3 : 0;
    return ((st.mode >> shift) & bits) === bits;
  };
  const searchable = (p: string): boolean => {
    const parts = p.split(sep).filter(Boolean);
    for (let n = 0; n < parts.length; n++) if (!allows(sep + parts.slice(0, n).join(sep), 0o1)) return false;
    return true;
  };
  const real = realOrNull(path);
  return (
    real !== null &&
    searchable(resolve(path)) &&
    searchable(real) &&
    allows(real, lstatSync(real).isDirectory() ? 0o5 : 0o4)
  );
};

/** The system trees shown read-only: a merged-/usr link is recreated as the same link. */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

export interface BubblewrapInput {
  argv: readonly string[];
  place: JailPlace;
  /** PATH of the process (its directories are shown read-only). */
  path: string | undefined;
  /** Paths never shown, wherever they lie (the bot's data directory, database, `.env`, config, secrets). */
  hidden: readonly string[];
  /** The node binary running the bot (shown: the agent CLIs are node programs). */
  nodeBinary: string;
  /** The uid the sandbox starts as, when not the runner's: paths it cannot reach are left out. */
  user?: { uid: number; gid: number };
  /** Unshare the network; with a proxy directory, the forwarder gives the process its endpoints. */
  network?: { proxyDir: string; forwarder: string } | 'none';
}

/** The bubblewrap argv for one process (pure but for reading which paths exist). */
export const bubblewrapArgv = (i: BubblewrapInput): string[] => {
  const out = [
    'bwrap',
    ...(i.place.outlivesParent ? [] : ['--die-with-parent']),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(i.network ? ['--unshare-net'] : []),
  ];
  const shown: string[] = [];
  for (const dir of SYSTEM) {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) out.push('--symlink', readlinkSync(dir), dir);
    else {
      out.push('--ro-bind', dir, dir);
      shown.push(dir);
    }
  }
  // A resolv.conf that links outside /etc (systemd-resolved's stub) keeps working.
  const resolv = realOrNull('/etc/resolv.conf');
  const readable = new Set<string>(resolv && !inside(resolv, '/etc') ? [resolv] : []);
  const nodeReal = realOrNull(i.nodeBinary) ?? i.nodeBinary;
  // `…/bin/node` of an install outside /usr (nvm, a tarball): its whole prefix (lib/node_modules too).
  readable.add(dirname(dirname(nodeReal)));
  for (const d of (i.path ?? '').split(delimiter)) if (d && isAbsolute(d) && existsSync(d)) readable.add(d);
  for (const r of i.place.readable ?? []) readable.add(r);
  const program = i.argv[0] ? locate(i.argv[0], i.place.cwd, i.path) : undefined;
  if (program) for (const d of programDirs(program)) readable.add(d);
  for (const a of i.argv.slice(1)) {
    if (isAbsolute(a) && existsSync(a)) {
      readable.add(a);
      const real = realOrNull(a);
      if (real && real !== a) readable.add(real);
    }
  }
  const writable = i.place.writable.map((w) => resolve(w));
  // Its own /dev, /proc and /tmp before the paths shown: one under /tmp (a workspace there) is bound on
  // top of the private /tmp, not covered by it.
  out.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // Nested paths are shown once, by their outermost directory; the system trees already are.
  const sorted = [...readable]
    .map((p) => resolve(p))
    .filter((p) => existsSync(p) && !writable.some((w) => inside(p, w)))
    .filter((p) => !i.user || reachableBy(p, i.user))
    .sort((a, b) => a.length - b.length);
  for (const p of sorted) {
    // A system tree is shown already, or linked to one that is (/bin → usr/bin).
    if (shown.some((s) => inside(p, s)) || SYSTEM.some((d) => inside(p, d))) continue;
    out.push('--ro-bind', p, p);
    shown.push(p);
  }
  // What must never be seen is covered wherever a shown tree holds it: an empty directory or /dev/null.
  for (const h of i.hidden.map((p) => resolve(p))) {
    if (!shown.some((s) => inside(h, s))) continue;
    const st = lstatSync(h, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push('--tmpfs', h);
    else out.push('--ro-bind', '/dev/null', h);
  }
  for (const w of writable) out.push('--bind', w, w);
  for (const r of (i.place.readable ?? []).map((p) => resolve(p))) {
    if (existsSync(r) && writable.some((w) => inside(r, w))) out.push('--ro-bind', r, r);
  }
  const proxy = i.network === 'none' ? undefined : i.network;
  if (proxy)
    out.push('--ro-bind', proxy.proxyDir, PROXY_DIR_INSIDE, '--ro-bind', proxy.forwarder, FORWARDER_INSIDE);
  out.push('--setenv', 'HOME', i.place.home, '--setenv', 'TMPDIR', '/tmp', '--chdir', i.place.cwd, '--');
  // No endpoints: no network at all. Else the forwarder offers the proxy on the sandbox's loopback.
  if (proxy) out.push(nodeReal, FORWARDER_INSIDE, join(PROXY_DIR_INSIDE, PROXY_SOCKET), '--');
  out.push(...i.argv);
  return out;
};

/** Where a sandbox sees its proxy's directory and the forwarder script. */
const PROXY_DIR_INSIDE = '/run/blitz-proxy';
const FORWARDER_INSIDE = '/run/blitz-sandbox-net.mjs';
const forwarderSource = fileURLToPath(new URL('./sandbox-net.mjs', import.meta.url));

export interface JailOptions {
  sandbox?: SandboxKind;
  network: NetworkKind;
  user?: WorkerUser;
  /** Paths no sandboxed process may see. */
  hidden: readonly string[];
  /** The runner's own directory for the proxies' sockets and the forwarder (inside its workspace). */
  stateDir: string;
  /** PATH of the processes started through the jail. */
  path: string | undefined;
  logger: Logger;
  /** Whether bubblewrap works here (default: run it once, as the worker user). */
  probe?: () => { ok: true } | { ok: false; reason: string };
  nodeBinary?: string;
}

/** Runs a trivial command in a sandbox like the workers' once, as the worker user. */
export const probeBubblewrap = (user: WorkerUser | undefined, path: string | undefined) => {
  const argv = [
    'bwrap',
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-net',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--',
    'true',
  ];
  const res = probeSync(argv, {
    env: { PATH: path ?? '/usr/bin:/bin' },
    timeoutMs: 10_000,
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  if (res.exitCode === 0) return { ok: true as const };
  const why = res.stderr.trim().split('\n').pop() || `exit ${res.exitCode ?? 'signal'}`;
  return { ok: false as const, reason: `bubblewrap (bwrap) does not work here: ${why}` };
};

/** The warning logged (and shown by the dashboard and doctor) when workers run in no sandbox. */
export const noSandboxWarning = (why: string): string =>
  `Workers and gates run in no sandbox (${why}): a worker sees every file its user can read and the ` +
  'whole network. Install bubblewrap (Debian: apt-get install bubblewrap) and allow user namespaces, ' +
  'or set runner.sandbox: none in blitz.config.yml to say this is meant.';

/**
 * The jail the config asks for. `sandbox` unset: bubblewrap when it works on this host, else none with
 * a warning. `bubblewrap` asked for and not working is `config_invalid`, as is `model-only` without it.
 */
export const createJail = (o: JailOptions): WorkerJail => {
  let kind: SandboxKind = o.sandbox ?? 'bubblewrap';
  if (kind === 'bubblewrap') {
    const probe = (o.probe ?? (() => probeBubblewrap(o.user, o.path)))();
    if (!probe.ok) {
      if (o.sandbox === 'bubblewrap')
        throw new AppError(
          'config_invalid',
          `runner.sandbox is bubblewrap, but ${probe.reason}. Install bubblewrap, or set runner.sandbox: none.`,
        );
      o.logger.warn({ sandbox: 'none', reason: probe.reason }, noSandboxWarning(probe.reason));
      kind = 'none';
    }
  } else o.logger.warn({ sandbox: 'none' }, noSandboxWarning('runner.sandbox is none'));
  if (kind === 'none') {
    if (o.network === 'model-only')
      throw new AppError(
        'config_invalid',
        'runner.network is model-only, which needs the bubblewrap sandbox, and workers run in none.',
      );
    return plainJail(o.user);
  }
  return bubblewrapJail(o);
};

const bubblewrapJail = (o: JailOptions): WorkerJail => {
  const nodeBinary = o.nodeBinary ?? process.execPath;
  // The forwarder is copied where a worker user can read it (the bot's install folder may be closed).
  let forwarder: string | undefined;
  const forwarderCopy = (): string => {
    if (!forwarder) {
      mkdirSync(o.stateDir, { recursive: true, mode: 0o755 });
      forwarder = join(o.stateDir, 'sandbox-net.mjs');
      copyFileSync(forwarderSource, forwarder);
    }
    return forwarder;
  };
  const proxies = new ModelProxies(join(o.stateDir, 'proxies'), o.logger);
  const networkOf = (place: JailPlace): BubblewrapInput['network'] => {
    if (place.offline) return 'none';
    if (o.network === 'full' || place.hostNetwork) return undefined;
    const endpoints = place.endpoints ?? [];
    return endpoints.length > 0
      ? { forwarder: forwarderCopy(), proxyDir: proxies.dirFor(endpoints) }
      : 'none';
  };
  return {
    kind: 'bubblewrap',
    ...(o.user ? { user: o.user } : {}),
    wrap: (argv, place) => {
      const network = networkOf(place);
      return bubblewrapArgv({
        argv,
        place,
        path: o.path,
        hidden: o.hidden,
        nodeBinary,
        ...(o.user ? { user: o.user } : {}),
        ...(network ? { network } : {}),
      });
    },
    prepare: async (place) => {
      if (o.network === 'full' || place.hostNetwork || place.offline || !place.endpoints?.length) return;
      await proxies.ensure(place.endpoints);
    },
    close: () => proxies.close(),
  };
};

/**
 * What a process in a linked worktree reads of git besides the worktree: its `.git` file (kept as it
 * is: the runner's own git goes there next) and the clone's git directory, read-only. None for a
 * repository of its own (a `.git` directory), which is its to write.
 */
export const worktreeGitReadable = (worktree: string): string[] => {
  const dotGit = join(worktree, '.git');
  const st = lstatSync(dotGit, { throwIfNoEntry: false });
  if (!st?.isFile()) return [];
  try {
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
    if (!gitdir) return [dotGit];
    const own = resolve(worktree, gitdir);
    const common = existsSync(join(own, 'commondir'))
      ? resolve(own, readFileSync(join(own, 'commondir'), 'utf8').trim())
      : own;
    return [dotGit, common];
  } catch {
    return [dotGit];
  }
};
