// The network side of a model-only sandbox, run inside it before the worker: it listens on the
// sandbox's own loopback and carries each connection to the runner's allowlisting proxy, whose unix
// socket is bind-mounted in; the worker gets it as HTTP_PROXY/HTTPS_PROXY. The sandbox has no other
// network, so stopping or bypassing this process reaches nothing but the same proxy.
// Usage: node sandbox-net.mjs <proxy socket> -- <argv...>
// Plain JavaScript, no dependencies: it runs from a copy the worker user can read.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [socketPath, sep, file, ...args] = process.argv.slice(2);
if (!socketPath || sep !== '--' || !file) {
  process.stderr.write('usage: sandbox-net.mjs <proxy socket> -- <argv...>\n');
  process.exit(64);
}

const server = createServer((client) => {
  const up = connect(socketPath);
  client.pipe(up);
  up.pipe(client);
  up.on('error', () => client.destroy());
  client.on('error', () => up.destroy());
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const proxy = `http://127.0.0.1:${port}`;
  const env = { ...process.env };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'])
    env[name] = proxy;
  for (const name of ['NO_PROXY', 'no_proxy']) delete env[name];
  const child = spawn(file, args, { stdio: 'inherit', shell: false, env });
  child.on('error', (err) => {
    process.stderr.write(`blitz-sandbox-net: could not start ${file}: ${err.code ?? ''} ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    server.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 128);
  });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
});
