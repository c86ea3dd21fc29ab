// A worker for the sandbox tests: it commits nothing and prints, one line each, what it could reach.
//   PROBE_PATHS    JSON list of files and directories it tries to read: `READ <path> <content|error code>`
//   PROBE_PIDS     JSON list of pids: `ENVIRON <pid> <content|error code>` and `KILL <pid> <ok|error code>`
//   PROBE_CONNECT  JSON list of host:port: `DIRECT <host:port> <ok|error code>`, and through HTTP_PROXY
//                  `PROXIED <host:port> <CONNECT status> <first line of an HTTP answer through the tunnel>`
// and always `UID <uid>` and `PIDS <the pids its /proc lists>`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';

const list = (name) => JSON.parse(process.env[name] ?? '[]');
const line = (s) => process.stdout.write(`${s}\n`);
const code = (err) => err.code ?? err.message;

line(`UID ${process.getuid()}`);
line(
  `PIDS ${readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .join(',')}`,
);
for (const p of list('PROBE_PATHS')) {
  try {
    const text = statSync(p).isDirectory() ? readdirSync(p).join(',') : readFileSync(p, 'utf8');
    line(`READ ${p} ${JSON.stringify(text)}`);
  } catch (err) {
    line(`READ ${p} ${code(err)}`);
  }
}
for (const pid of list('PROBE_PIDS')) {
  try {
    line(`ENVIRON ${pid} ${JSON.stringify(readFileSync(`/proc/${pid}/environ`, 'utf8'))}`);
  } catch (err) {
    line(`ENVIRON ${pid} ${code(err)}`);
  }
  try {
    process.kill(pid, 0);
    line(`KILL ${pid} ok`);
  } catch (err) {
    line(`KILL ${pid} ${code(err)}`);
  }
}

const direct = (hostPort) =>
  new Promise((done) => {
    const at = hostPort.lastIndexOf(':');
    const s = connect(Number(hostPort.slice(at + 1)), hostPort.slice(0, at));
    s.once('connect', () => {
      s.destroy();
      done('ok');
    });
    s.once('error', (err) => done(code(err)));
  });

const proxied = (hostPort) =>
  new Promise((done) => {
    const proxy = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : undefined;
    if (!proxy) return done('no-proxy');
    const s = connect(Number(proxy.port), proxy.hostname);
    let buf = '';
    let tunnel = '';
    s.once('connect', () => s.write(`CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n\r\n`));
    s.on('data', (d) => {
      buf += d.toString();
      if (!tunnel && buf.includes('\r\n\r\n')) {
        tunnel = buf.split('\r\n')[0];
        buf = '';
        if (!tunnel.includes(' 200 ')) {
          s.destroy();
          return done(`${tunnel.split(' ')[1]} -`);
        }
        s.write(`GET / HTTP/1.0\r\nHost: ${hostPort}\r\n\r\n`);
      } else if (tunnel && buf.includes('\r\n')) {
        s.destroy();
        done(`${tunnel.split(' ')[1]} ${buf.split('\r\n')[0]}`);
      }
    });
    s.once('error', (err) => done(code(err)));
  });

for (const hp of list('PROBE_CONNECT')) {
  line(`DIRECT ${hp} ${await direct(hp)}`);
  line(`PROXIED ${hp} ${await proxied(hp)}`);
}
