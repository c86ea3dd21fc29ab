import { describe, expect, it } from 'vitest';
import { runConfigCli } from './validate-command.ts';

const cli = async (args: string[], files: Record<string, string>) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runConfigCli(args, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      return text;
    },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

describe('blitz-bot config validate', () => {
  it('says an operator file is valid and exits 0', async () => {
    const r = await cli(['validate', 'blitz.config.yml'], {
      'blitz.config.yml': 'runner: {maxSessions: 3}\nnotify:\n  - {type: slack, urlEnv: SLACK_URL}\n',
    });
    expect(r).toEqual({ code: 0, out: 'blitz.config.yml: valid operator settings', err: '' });
  });

  it('lists every problem of an operator file with its place and a did-you-mean, and exits 1', async () => {
    const r = await cli(['validate', 'b.yml'], {
      'b.yml': [
        'runner: {maxSesions: 3}',
        'roster:',
        '  - {name: a, tool: custom, command: [node, a.js], roles: [blitz], tiers: [execution]}',
        'notify:',
        '  - {type: slack}',
      ].join('\n'),
    });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    const lines = r.err.split('\n');
    expect(lines[0]).toBe('b.yml: 3 problems in the operator settings:');
    expect(lines).toContain(
      '- runner → maxSesions: is not a setting blitz-bot knows (did you mean `maxSessions`?)',
    );
    expect(lines).toContain('- roster entry 1 → resume: is required when tool is custom');
    expect(lines).toContain('- notify entry 1 → url: give exactly one of url and urlEnv');
  });

  it('checks a repository file with --repo', async () => {
    const good = await cli(['validate', '--repo', '.gitea/blitz.yml'], {
      '.gitea/blitz.yml': 'build: [npm, test]\nship: {policy: local}\n',
    });
    expect(good).toMatchObject({ code: 0, out: '.gitea/blitz.yml: valid repository settings' });
    const bad = await cli(['validate', '--repo', 'x.yml'], {
      'x.yml': 'biuld: [npm, test]\nship: {policy: deploy}\n',
    });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('2 problems in the repository settings');
    expect(bad.err).toContain('`biuld` is not a setting blitz-bot knows (did you mean `build`?)');
    expect(bad.err).toContain('`ship.deploy` is required when `ship.policy` is deploy');
  });

  it('reads a repository file as the bot would not take an operator one', async () => {
    // The same text is fine for one kind and wrong for the other: the flag decides which parser.
    const r = await cli(['validate', 'x.yml'], { 'x.yml': 'build: [npm, test]\n' });
    expect(r.code).toBe(1);
    expect(r.err).toContain('build: is not a setting blitz-bot knows');
  });

  it('says in words when the file cannot be read, and on bad arguments shows the usage', async () => {
    expect(await cli(['validate', 'gone.yml'], {})).toMatchObject({
      code: 1,
      err: 'gone.yml: cannot read the file (ENOENT)',
    });
    expect((await cli(['validate'], {})).code).toBe(2);
    expect((await cli(['check', 'x.yml'], {})).code).toBe(2);
    expect((await cli(['validate', '--strict', 'x.yml'], {})).code).toBe(2);
  });

  it('reports broken YAML as a problem, not a crash', async () => {
    const r = await cli(['validate', 'x.yml'], { 'x.yml': 'runner: [unclosed\n' });
    expect(r.code).toBe(1);
    expect(r.err).toContain('is not valid YAML');
  });
});
