// Worker wrapper: runs the agent command with this process's stdio (the attempt log) and writes
// exit.json when it ends, so the exit code survives a restart of the bot that started it.
// Usage: node worker-wrapper.mjs <exit.json path> -- <argv...>
// Plain JavaScript, no dependencies: it must start fast and outlive the TypeScript supervisor.
import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';

const [exitPath, sep, file, ...args] = process.argv.slice(2);
if (!exitPath || sep !== '--' || !file) {
  process.stderr.write('usage: worker-wrapper.mjs <exit.json> -- <argv...>\n');
  process.exit(64);
}

const finish = (result) => {
  const tmp = `${exitPath}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...result, endedAt: new Date().toISOString() }));
  renameSync(tmp, exitPath);
};

const child = spawn(file, args, { stdio: 'inherit', shell: false });
child.on('error', (err) => {
  process.stderr.write(`blitz-runner: could not start ${file}: ${err.code ?? ''} ${err.message}\n`);
  finish({ exitCode: 127, signal: null, error: err.code ?? 'spawn_failed' });
  process.exit(127);
});
child.on('exit', (code, signal) => {
  finish({ exitCode: code ?? 128, signal: signal ?? null });
  process.exit(code ?? 128);
});
// The group is signalled as a whole on timeout or cancel; make sure the child hears it too.
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
