// A loopback TCP proxy a test puts between the bot and a real server (PostgreSQL) so that it can take
// the server away and give it back without touching the server itself: `cut()` destroys every open
// connection and refuses new ones (the listener stays bound, so the port stays ours and a client sees
// ECONNRESET / ECONNREFUSED-like failures at once); `restore()` lets connections through again.
import net from 'node:net';

export interface TcpProxy {
  /** The port on 127.0.0.1 the proxy listens on. */
  readonly port: number;
  /** `host:port` of the proxy, for a URL. */
  readonly address: string;
  /** Connections passed through (or refused) since start. */
  readonly stats: { accepted: number; refused: number; open: number };
  /** True while cut. */
  readonly isCut: boolean;
  /**
   * The local ports of the proxy's open connections to the target: PostgreSQL's `client_port` for
   * them (pg_stat_activity), so a test on a shared server looks at its own sessions only.
   */
  upstreamPorts(): number[];
  /** Destroys every open connection (both sides) and refuses new ones until `restore()`. */
  cut(): void;
  /** Lets new connections through again. */
  restore(): void;
  /** Rewrites `url` (e.g. `postgres://u@127.0.0.1:5432/db?x=y`) to go through the proxy. */
  urlThrough(url: string): string;
  /** Destroys every connection and closes the listener. */
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /** Where to forward to. */
  targetHost: string;
  targetPort: number;
  /** Port to listen on (default: any free one). */
  port?: number;
}

/** Starts a proxy on 127.0.0.1 forwarding to `targetHost:targetPort`. */
export const startTcpProxy = async (opts: TcpProxyOptions): Promise<TcpProxy> => {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const stats = { accepted: 0, refused: 0, open: 0 };
  let cut = false;

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    client.on('error', () => {});
    if (cut) {
      stats.refused += 1;
      // A reset, not a clean FIN: what a client sees when nothing listens or a firewall drops it.
      client.resetAndDestroy();
      return;
    }
    stats.accepted += 1;
    const upstream = net.connect({ host: opts.targetHost, port: opts.targetPort });
    upstream.on('error', () => {});
    const pair = { client, upstream };
    pairs.add(pair);
    stats.open = pairs.size;
    const drop = () => {
      if (!pairs.delete(pair)) return;
      stats.open = pairs.size;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    upstream.on('connect', () => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new Error('tcp proxy: no port bound');
  const port = bound.port;

  const dropAll = () => {
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      pair.client.resetAndDestroy();
      pair.upstream.destroy();
    }
    stats.open = 0;
  };

  return {
    port,
    address: `127.0.0.1:${port}`,
    stats,
    get isCut() {
      return cut;
    },
    upstreamPorts() {
      return [...pairs].map((p) => p.upstream.localPort).filter((n): n is number => n !== undefined);
    },
    cut() {
      cut = true;
      dropAll();
    },
    restore() {
      cut = false;
    },
    urlThrough(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async close() {
      cut = true;
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
