// The runner's allowlisting HTTP proxy for `runner.network: model-only`. A sandboxed worker has no
// network of its own (bubblewrap's --unshare-net: a loopback and nothing else); the proxy listens on a
// unix socket in a directory bind-mounted into the sandbox, and the forwarder inside (sandbox-net.mjs)
// offers it on the sandbox's loopback as HTTP_PROXY/HTTPS_PROXY. It tunnels CONNECT and forwards
// absolute-form requests to the `host:port` endpoints of its list only; anything else is 403.
// One proxy per distinct list, kept for the runner's life; the socket's directory outlives a restart,
// so a worker started before one reaches the new proxy.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../observability/logger.ts';

export const PROXY_SOCKET = 'proxy.sock';

/** `host:port` in one spelling (lower case, IPv6 without brackets), or undefined when it is not one. */
export const normalEndpoint = (hostPort: string): string | undefined => {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(hostPort.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65_535) return undefined;
  return `${m[1]!.toLowerCase()}:${port}`;
};

/** The endpoint a URL names (`https://api.anthropic.com` → `api.anthropic.com:443`). */
export const endpointOfUrl = (url: string): string | undefined => {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    return normalEndpoint(`${u.hostname.replace(/^\[|\]$/g, '')}:${port}`);
  } catch {
    return undefined;
  }
};

/** The proxy of one allowlist. */
export const createAllowlistProxy = (allowed: ReadonlySet<string>, logger: Logger): Server => {
  const server = createServer((req, res) => {
    const target = endpointOfUrl(req.url ?? '');
    if (!target || !allowed.has(target)) {
      logger.warn({ target: target ?? 'not a URL' }, 'model-only proxy refused a request');
      res.writeHead(403, { 'content-type': 'text/plain' }).end('blitz: this endpoint is not allowed\n');
      return;
    }
    const url = new URL(req.url!);
    const upstream = request(
      url,
      { method: req.method, headers: { ...req.headers, host: url.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.headersSent || res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    const target = normalEndpoint(req.url ?? '');
    if (!target || !allowed.has(target)) {
      logger.warn({ target: target ?? 'not host:port' }, 'model-only proxy refused a tunnel');
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const at = target.lastIndexOf(':');
    const up = connect(Number(target.slice(at + 1)), target.slice(0, at), () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    socket.on('error', () => up.destroy());
  });
  return server;
};

export class ModelProxies {
  private readonly servers = new Map<string, Promise<Server>>();
  constructor(
    private readonly base: string,
    private readonly logger: Logger,
  ) {}

  private keyOf(endpoints: readonly string[]): string[] {
    return [...new Set(endpoints.map((e) => normalEndpoint(e)).filter((e): e is string => !!e))].sort();
  }

  /** The directory whose socket serves this list (the same list, the same directory). */
  dirFor(endpoints: readonly string[]): string {
    const key = this.keyOf(endpoints).join(',');
    return join(this.base, createHash('sha256').update(key).digest('hex').slice(0, 16));
  }

  /** Listens for this list, once. */
  ensure(endpoints: readonly string[]): Promise<Server> {
    const dir = this.dirFor(endpoints);
    let s = this.servers.get(dir);
    if (!s) {
      s = new Promise<Server>((done, fail) => {
        mkdirSync(dir, { recursive: true, mode: 0o755 });
        chmodSync(dir, 0o755);
        const path = join(dir, PROXY_SOCKET);
        rmSync(path, { force: true });
        const server = createAllowlistProxy(new Set(this.keyOf(endpoints)), this.logger);
        server.once('error', fail);
        server.listen(path, () => {
          // Workers run as another uid: anyone who can reach the directory may connect.
          chmodSync(path, 0o666);
          done(server);
        });
      });
      this.servers.set(dir, s);
    }
    return s;
  }

  async close(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    for (const s of all) {
      const server = await s.catch(() => undefined);
      if (server) {
        server.closeAllConnections?.();
        await new Promise<void>((done) => server.close(() => done()));
      }
    }
  }
}
