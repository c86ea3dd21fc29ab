// The agents tier's offline mode (`npm run test:agents -- --offline`): the CLIs are installed with the
// network, then the tier runs in a network namespace of its own whose only interface is loopback
// (bubblewrap's --unshare-net, the rest of the host shown as it is), so the mock model answers and
// nothing else does: a CLI that fetches anything at run time (a plugin, a model list, an update)
// fails there as it would on an air-gapped runner. `offlineCheck` is how the tier knows the namespace
// is real, so an offline pass cannot be one with the registry in reach.
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Set for the tier's processes in offline mode: the compat suite then checks it has no route out. */
export const OFFLINE_ENV = 'BLITZ_AGENTS_OFFLINE';

/** The registry the CLIs are installed from, which must be out of reach while the tier runs. */
export const REGISTRY = { host: 'registry.npmjs.org', port: 443 };

/**
 * argv run in a new network namespace with loopback up and nothing else; the file system, /dev and
 * /proc are the host's (one bind of `/`), so the workers' own bubblewrap sandbox nests inside.
 */
export const loopbackOnly = (argv: readonly string[]): string[] => [
  'bwrap',
  '--die-with-parent',
  '--unshare-net',
  '--dev-bind',
  '/',
  '/',
  '--',
  ...argv,
];

/** Connects to host:port; the error code when that fails ('timeout' when nothing answers in time). */
export const tryConnect = (
  host: string,
  port: number,
  timeoutMs = 10_000,
): Promise<{ reached: true } | { reached: false; code: string }> =>
  new Promise((done) => {
    const socket = connect({ host, port });
    const end = (r: { reached: true } | { reached: false; code: string }) => {
      socket.destroy();
      done(r);
    };
    socket.setTimeout(timeoutMs, () => end({ reached: false, code: 'timeout' }));
    socket.once('connect', () => end({ reached: true }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      end({ reached: false, code: err.code ?? err.message }),
    );
  });

export type OfflineCheck = { offline: true; registry: string } | { offline: false; why: string };

/**
 * Whether this process has no way out: every network interface is loopback, and a connection to the
 * registry fails (its error is returned, to be shown). Both, because a failed connection alone may be
 * a DNS outage on a host that still has a route out.
 */
export const offlineCheck = async (): Promise<OfflineCheck> => {
  const outside = Object.entries(networkInterfaces()).flatMap(([name, addrs]) =>
    (addrs ?? []).filter((a) => !a.internal).map((a) => `${name} ${a.address}`),
  );
  if (outside.length > 0)
    return { offline: false, why: `network interfaces besides loopback: ${outside.join(', ')}` };
  const r = await tryConnect(REGISTRY.host, REGISTRY.port);
  if (r.reached) return { offline: false, why: `${REGISTRY.host}:${REGISTRY.port} answered` };
  return { offline: true, registry: r.code };
};
