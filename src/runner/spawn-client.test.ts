// The spawn host starts the bot's short commands from a small process of its own (spawn-host.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, testEnv } from '../../test/support/git.ts';
import { run } from './exec.ts';

const ppid = ['node', '-e', 'console.log(process.ppid)'];
const opts = () => ({ cwd: tempDir(), env: testEnv(), timeoutMs: 20_000 });

afterEach(() => {
  delete process.env.BLITZ_SPAWN_HOST;
  delete process.env.BLITZ_SPAWN_HOST_PROBE;
});

describe('the spawn host', () => {
  it('starts the command from its own process, one host for every command', async () => {
    const first = Number((await run(ppid, opts())).stdout);
    const second = Number((await run(ppid, opts())).stdout);
    expect(first).not.toBe(process.pid);
    expect(second).toBe(first);
  });

  it('with BLITZ_SPAWN_HOST=off the bot starts the command itself', async () => {
    process.env.BLITZ_SPAWN_HOST = 'off';
    expect(Number((await run(ppid, opts())).stdout)).toBe(process.pid);
  });

  it("without an environment of its own, a command gets the bot's environment as it is at the call", async () => {
    await run(ppid, opts());
    process.env.BLITZ_SPAWN_HOST_PROBE = 'set after the host started';
    const res = await run(['node', '-e', 'console.log(process.env.BLITZ_SPAWN_HOST_PROBE)'], {
      cwd: tempDir(),
      timeoutMs: 20_000,
    });
    expect(res.stdout.trim()).toBe('set after the host started');
  });

  it('a host killed mid-command fails that command, and the next one starts a new host', async () => {
    const host = Number((await run(ppid, opts())).stdout);
    const long = run(['node', '-e', 'setTimeout(() => {}, 30000)'], opts());
    // The long command is in flight in the host: kill the host under it.
    process.kill(host, 'SIGKILL');
    await expect(long).rejects.toMatchObject({ code: 'internal', message: /spawn host exited \(SIGKILL\)/ });
    const next = Number((await run(ppid, opts())).stdout);
    expect(next).not.toBe(host);
    expect(next).not.toBe(process.pid);
  });

  it("a command's 40 MB of output comes back whole through the host's small heap", async () => {
    const big = ['node', '-e', "process.stdout.write('x'.repeat(40 * 1024 * 1024))"];
    const res = await run(big, opts());
    expect(res.exitCode).toBe(0);
    expect(res.stdout.length).toBe(40 * 1024 * 1024);
  });

  it('a timeout is the result it would be in the bot: exit 124, timedOut', async () => {
    const res = await run(['node', '-e', 'setTimeout(() => {}, 30000)'], { ...opts(), timeoutMs: 300 });
    expect(res).toMatchObject({ exitCode: 124, timedOut: true });
  });
});
