// Slow for a reason: the whole `npm run demo` (a five-issue blitz with fake agents) as a process.
// It serves the status page of the run it made, prints its URL and a token while the run goes, the
// page and the API answer with that token and show the run, and after the run the page stays up until
// SIGTERM, when the demo exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runDetailSchema } from '../../src/status/api-schemas.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

describe('npm run demo', () => {
  it('serves the status page of its run and prints its URL; the page stays up until SIGTERM', async () => {
    const demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
      cwd: root,
      env: { ...process.env, DEMO_PORT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = demo;
    let out = '';
    const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
    const check = () => {
      for (const w of waiters.splice(0)) {
        const m = w.re.exec(out);
        if (m) w.resolve(m);
        else waiters.push(w);
      }
    };
    demo.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      check();
    });
    demo.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
    const printed = (re: RegExp) =>
      Promise.race([
        new Promise<RegExpExecArray>((resolve) => {
          waiters.push({ re, resolve });
          check();
        }),
        exited.then((code) => {
          throw new Error(`the demo exited (${code}) before printing ${re}:\n${out}`);
        }),
      ]);

    const [, page, token] = await printed(
      /status page: (http:\/\/127\.0\.0\.1:\d+\/runs\/(\S+))\n {2}log in with the token (\S+)\n/,
    ).then((m) => [m[0], m[1]!, m[3]!] as const);
    const runId = page.slice(page.lastIndexOf('/') + 1);
    const bearer = { authorization: `Bearer ${token}` };
    const live = await fetch(page, { headers: bearer });
    expect(live.status).toBe(200);
    expect(await live.text()).toContain(runId);
    // Without the token a browser is sent to the login form.
    const refused = await fetch(page, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(refused.status).toBe(303);

    await printed(/Ctrl-C stops the demo\./);
    const api = new URL(`/api/v1/runs/${runId}`, page);
    const run = runDetailSchema.parse(await (await fetch(api, { headers: bearer })).json());
    expect(run.run.state).toBe('done');
    expect(run.issues.map((i) => i.number).sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await fetch(page, { headers: bearer })).status).toBe(200);

    demo.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 240_000);
});
