// The OS user workers run as (`runner.user` / `runner.group` in blitz.config.yml): apart from the bot,
// a worker can read neither the bot's environment (`/proc/<pid>/environ`) nor its files. Names are
// looked up in /etc/passwd and /etc/group once, at start; numeric ids are taken as they are.
import { lchownSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors.ts';

export interface WorkerUser {
  uid: number;
  gid: number;
  /** The name, for HOME/USER/LOGNAME and messages (the id itself when it has no passwd entry). */
  name: string;
  /** The user's home from /etc/passwd, given to the worker as HOME. */
  home?: string;
}

interface DbEntry {
  name: string;
  id: number;
  gid?: number;
  home?: string;
}

const readDb = (path: string, kind: 'passwd' | 'group'): DbEntry[] => {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(':'))
    .map((f) => ({
      name: f[0] ?? '',
      id: Number(f[2]),
      ...(kind === 'passwd' ? { gid: Number(f[3]), home: f[5] } : {}),
    }));
};

const isId = (s: string): boolean => /^\d+$/.test(s);

/**
 * What switching workers to another user takes besides root: CAP_SETUID and CAP_SETGID (to switch),
 * CAP_CHOWN (to hand an attempt's files to the worker) and CAP_KILL (to stop a worker of another
 * uid). The container's runner gets them as file capabilities on its own copy of node.
 */
export const workerSwitchCaps = { chown: 0, kill: 5, setgid: 6, setuid: 7 } as const;

/**
 * Pure: whether a `/proc/<pid>/status` text shows every capability of `workerSwitchCaps` in
 * `CapEff` (the effective set, in hex). A text without a CapEff line has none.
 */
export const canSwitchUsers = (procStatus: string): boolean => {
  const hex = /^CapEff:\s*([0-9a-fA-F]+)\s*$/m.exec(procStatus)?.[1];
  if (!hex) return false;
  const eff = BigInt(`0x${hex}`);
  return Object.values(workerSwitchCaps).every((bit) => (eff >> BigInt(bit)) & 1n);
};

const ownCapsText = (): string => {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
};

/**
 * The worker user of the config, or undefined when workers run as the bot's own user. Throws
 * `config_invalid` for an unknown name, and when the bot cannot switch users (neither root nor holding
 * the capabilities of `workerSwitchCaps`).
 */
export const resolveWorkerUser = (
  cfg: { user?: string; group?: string },
  opts: { botUid: number; passwd?: string; group?: string; procStatus?: string },
): WorkerUser | undefined => {
  if (cfg.user === undefined) {
    if (cfg.group !== undefined)
      throw new AppError('config_invalid', 'runner.group is set without runner.user: set both, or neither.');
    return undefined;
  }
  if (opts.botUid !== 0 && !canSwitchUsers(opts.procStatus ?? ownCapsText())) {
    throw new AppError(
      'config_invalid',
      `runner.user is ${cfg.user}, but the bot runs as uid ${opts.botUid} without CAP_SETUID, CAP_SETGID, CAP_CHOWN and CAP_KILL: it cannot start workers as another user. ` +
        'Start it from a node binary with those file capabilities (setcap cap_setuid,cap_setgid,cap_chown,cap_kill+ep, as the runner image does), or as root, or remove runner.user.',
    );
  }
  const users = readDb(opts.passwd ?? '/etc/passwd', 'passwd');
  const entry = users.find((u) => (isId(cfg.user!) ? u.id === Number(cfg.user) : u.name === cfg.user));
  if (!entry && !isId(cfg.user)) {
    throw new AppError('config_invalid', `runner.user: there is no user ${cfg.user} on this host.`);
  }
  const uid = entry?.id ?? Number(cfg.user);
  if (uid === 0) throw new AppError('config_invalid', 'runner.user must not be root: that is no separation.');
  let gid = entry?.gid;
  if (cfg.group !== undefined) {
    const g = readDb(opts.group ?? '/etc/group', 'group').find((x) =>
      isId(cfg.group!) ? x.id === Number(cfg.group) : x.name === cfg.group,
    );
    if (!g && !isId(cfg.group))
      throw new AppError('config_invalid', `runner.group: there is no group ${cfg.group} on this host.`);
    gid = g?.id ?? Number(cfg.group);
  }
  if (gid === undefined) {
    throw new AppError(
      'config_invalid',
      `runner.user ${cfg.user} has no passwd entry: set runner.group too.`,
    );
  }
  return { uid, gid, name: entry?.name ?? String(uid), ...(entry?.home ? { home: entry.home } : {}) };
};

/** The home directory /etc/passwd gives a user (a name or a uid), if it has an entry. */
export const passwdHome = (user: string, passwd = '/etc/passwd'): string | undefined =>
  readDb(passwd, 'passwd').find((u) => (isId(user) ? u.id === Number(user) : u.name === user))?.home ||
  undefined;

/** Hands a directory tree to the worker user (symlinks themselves, never what they point at). */
export const chownTree = (path: string, user: WorkerUser): void => {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  if (st.uid !== user.uid || st.gid !== user.gid) lchownSync(path, user.uid, user.gid);
  if (!st.isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), user);
};

/** The warning logged once at start when workers run as the bot's own user. */
export const sameUserWarning = (uid: number): string =>
  `Workers run as the bot's own user (uid ${uid}). A worker runs model output over untrusted issue text, ` +
  "and as this user it can read the bot's environment (/proc/<pid>/environ) and every file the bot can. " +
  'Set runner.user (and runner.group) in blitz.config.yml to a separate account and start the bot as root, ' +
  'or run the bot and its workers as two users as the Dockerfile does; give secrets as *_FILE so they are not in the environment.';
