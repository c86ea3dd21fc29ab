// `blitz-bot serve` as an operator starts it: on a terminal (a real pseudo-terminal from util-linux
// `script`) it writes readable, coloured lines; piped, or with LOG_FORMAT=json, one JSON entry per line.
// Both start from a directory that is not the checkout, and still find the package's own app.yml.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { mainJs } from '../support/cli.ts';
import { removeDir, tempDir } from '../support/git.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Started {
  child: ChildProcess;
  output: { text: string };
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** Starts serve in a fresh directory (not the checkout), through a pty when `tty`. */
const start = (opts: { tty: boolean; env?: Record<string, string> }): Started => {
  const cwd = tempDir('blitz-logs-');
  const env = {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    DATABASE_URL: `sqlite:${join(cwd, 'blitz.db')}`,
    NODE: process.execPath,
    MAIN: mainJs,
    ...opts.env,
  };
  // script(1) takes one command line for the shell; it is fixed text, the paths come in as variables.
  const child = opts.tty
    ? spawn('script', ['-qec', 'exec "$NODE" "$MAIN" serve', '/dev/null'], {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [mainJs, 'serve'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { text: '' };
  child.stdout?.on('data', (d) => {
    output.text += String(d);
  });
  child.stderr?.on('data', (d) => {
    output.text += String(d);
  });
  cleanups.push(() => removeDir(cwd));
  cleanups.push(() => stopped(child));
  return { child, output };
};

/** Resolves with the text once `pattern` shows up in the output; fails if the process ends first. */
const seen = (s: Started, pattern: RegExp) =>
  new Promise<RegExpExecArray>((resolve, reject) => {
    const look = () => {
      const m = pattern.exec(stripVTControlCharacters(s.output.text));
      if (m) {
        s.child.stdout?.off('data', look);
        resolve(m);
      }
    };
    s.child.stdout?.on('data', look);
    s.child.once('exit', (code) => reject(new Error(`exited ${code} before ${pattern}: ${s.output.text}`)));
    look();
  });

const nonEmptyLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

describe('serve logs', () => {
  it('on a terminal writes coloured, readable lines, and finds its app.yml from another directory', async () => {
    const s = start({ tty: true });
    // pino-pretty puts each field on its own line under the message: `port: 40123`.
    const port = Number((await seen(s, /blitz-bot listening[\s\S]*?port: (\d+)/))[1]);
    const setup = await fetch(`http://127.0.0.1:${port}/probot`);
    expect(setup.status).toBe(200);
    expect(await setup.text()).toContain('issue_comment');
    await stopped(s.child);
    const plain = stripVTControlCharacters(s.output.text);
    expect(s.output.text).not.toBe(plain); // coloured: ANSI escapes around the level and fields
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: blitz-bot listening/m);
    expect(plain).not.toContain('{"level"');
  });

  it('with LOG_FORMAT=json writes JSON on a terminal too', async () => {
    const s = start({ tty: true, env: { LOG_FORMAT: 'json' } });
    await seen(s, /"msg":"blitz-bot listening"/);
    await stopped(s.child);
    // script(1)'s own goodbye when it is stopped is not the bot's.
    const lines = nonEmptyLines(s.output.text).filter((l) => !l.startsWith('Session terminated'));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('piped writes one JSON entry per line, and finds its app.yml from another directory', async () => {
    const s = start({ tty: false });
    const port = Number((await seen(s, /"port":(\d+)[^\n]*"msg":"blitz-bot listening"/))[1]);
    expect((await fetch(`http://127.0.0.1:${port}/probot`)).status).toBe(200);
    await stopped(s.child);
    const lines = nonEmptyLines(s.output.text);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('says in its start log what heap it runs with, and how to cap it when the bin runs with a larger one', async () => {
    // The bin runs plain node (no flag): a 4 GB cap stands for a host where node's default is large.
    const large = start({ tty: false, env: { NODE_OPTIONS: '--max-old-space-size=4096' } });
    await seen(large, /"msg":"blitz-bot listening"/);
    await stopped(large.child);
    const lines = nonEmptyLines(large.output.text).map((l) => JSON.parse(l));
    const limit = lines.find((l) => l.msg === 'blitz-bot listening')?.heapLimitMb;
    expect(limit).toBeGreaterThan(4096);
    expect(lines.filter((l) => String(l.msg).includes('NODE_OPTIONS=--max-old-space-size=1024'))).toEqual([
      expect.objectContaining({
        heapLimitMb: limit,
        msg: expect.stringContaining(`a ${limit} MB heap limit`),
      }),
    ]);

    // Given the cap npm start and the image give, it says the limit and nothing more.
    const capped = start({ tty: false, env: { NODE_OPTIONS: '--max-old-space-size=1024' } });
    await seen(capped, /"msg":"blitz-bot listening"/);
    await stopped(capped.child);
    const cappedLines = nonEmptyLines(capped.output.text).map((l) => JSON.parse(l));
    const cappedLimit = cappedLines.find((l) => l.msg === 'blitz-bot listening')?.heapLimitMb;
    expect(cappedLimit).toBeGreaterThanOrEqual(1024);
    expect(cappedLimit).toBeLessThan(1280);
    expect(cappedLines.filter((l) => String(l.msg).includes('NODE_OPTIONS'))).toEqual([]);
  });

  it('refuses an unknown LOG_FORMAT in words', async () => {
    const s = start({ tty: false, env: { LOG_FORMAT: 'yaml' } });
    const code = await new Promise<number | null>((resolve) => s.child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(s.output.text).toContain('LOG_FORMAT');
  });
});
