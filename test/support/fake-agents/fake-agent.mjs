// A fake agent CLI for tests: run as `node fake-agent.mjs [--resume] [prompt_file]` from a roster
// `custom` entry, in the worktree the runner made. It really edits and commits (or stalls, crashes,
// fails, commits nothing, fails like an outage), chosen by environment. Like a real worker it holds no
// forge credential and never pushes: the runner pushes the branch it commits on, so the `push` modes
// are named for what the attempt delivers (its branch on origin).
//   FAKE_AGENT_MODE         push | slow-push | stall | crash | fail | nothing | outage | limit | commit-then-stall
//                           | conflict | uncertain | markers | commit | plan | dump-env   (default push)
//                           plan: a planner task (prompt with `PLANNING TASK`) gets PLAN.md committed
//                           (first line `SIZE: X` when the prompt asks for a size, X from a
//                           `fake-size: X` line in the issue, default M); any other task is `push`
//   FAKE_AGENT_RESUME_MODE  the mode when started with --resume (default push)
//   FAKE_AGENT_FILE         file to write (default fake-<issue>.txt); FAKE_AGENT_CONTENT its content
//   FAKE_AGENT_FILES        JSON {"owner/name#n": file}: the file for one ticket (wins over FAKE_AGENT_FILE)
//   FAKE_AGENT_FORMAT       text | claude (claude-style stream JSON with usage and a result event)
//   FAKE_AGENT_MODEL        claude format: the model its init event says it runs
//   FAKE_AGENT_DELAY_MS     how long slow-push / stall wait (default 2000 / one hour)
//   FAKE_AGENT_DELAYS       JSON {"owner/name#n": ms}: slow-push's wait for one ticket (wins over FAKE_AGENT_DELAY_MS)
//   FAKE_AGENT_EXIT         exit code of `fail` (default 3)
//   FAKE_AGENT_UNCERTAINTY  the line `uncertain` reports
//   FAKE_AGENT_TRACE        a file each invocation appends one JSON line to (argv, cwd, env BLITZ_*)
//   FAKE_AGENT_MODES        JSON {"owner/name#n": mode}: the mode for one ticket (wins over FAKE_AGENT_MODE)
//   FAKE_AGENT_MODE_FILE    a file whose first line, when there is one, is the mode (wins over all the
//                           above, --resume too): a test flips a fault on and off while the bot runs;
//                           its second line, when there is one, is limit's reset time
//   FAKE_AGENT_RESET_EPOCH  limit: the reset time (unix seconds) claude prints after `usage limit reached|`
//   FAKE_AGENT_RESUME_MODES the same for --resume
//   FAKE_AGENT_BUG          a line the report lists under OUT-OF-SCOPE BUGS
//   FAKE_AGENT_GIT_CONFIG   `key=value` lines set in the repository's git config before anything else
//   FAKE_AGENT_TAG          an annotated tag of this name made at every commit (-f: the last one wins)
//   FAKE_AGENT_PEEK_PIDS    dump-env: pids whose /proc/<pid>/environ it tries to read
//   broken                  commits its file with a line `broken` (a repository test script can fail on it)
//   revise                  commits its file again with one more `revised` line (a fix, or a review addressed)
//   append                  appends the line `line for #<issue>` to FAKE_AGENT_FILE (three of these on one base
//                           append at the same place: each merge after the first conflicts)
//   merge-base              finishes (or starts) a merge of origin/$BLITZ_BASE_BRANCH into the branch,
//                           keeping both sides of every conflict (union), and commits
//   merge-base-careless     the same, but commits the conflicted files as they are (markers left in)
//   quiet-command           runs `sleep 3600` as a child, silently, and once it ends commits; the child's pid
//                           goes to FAKE_AGENT_CHILD_PID_FILE (a test ends it)
//   refused                 claude's way of ending when its allowlist refused `pytest -q`: a result event with
//                           permission_denials, exit 0, nothing committed
//   quiet-busy              spins the CPU, silently, until FAKE_AGENT_DONE_FILE exists, then commits
//   disk-heavy              waits for FAKE_AGENT_GO_FILE, then commits a FAKE_AGENT_BIG_BYTES file (2 MiB)
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const resuming = args.includes('--resume');
const promptFile = args.find((a) => !a.startsWith('--')) ?? process.env.BLITZ_PROMPT_FILE;
const env = process.env;
const perTicket = (name) =>
  env[name] ? JSON.parse(env[name])[`${env.BLITZ_REPO}#${env.BLITZ_ISSUE}`] : undefined;
const modeLines =
  env.FAKE_AGENT_MODE_FILE && existsSync(env.FAKE_AGENT_MODE_FILE)
    ? readFileSync(env.FAKE_AGENT_MODE_FILE, 'utf8')
        .split('\n')
        .map((l) => l.trim())
    : [];
const resetEpoch = modeLines[1] || env.FAKE_AGENT_RESET_EPOCH;
const mode =
  (modeLines[0] || undefined) ??
  (resuming
    ? (perTicket('FAKE_AGENT_RESUME_MODES') ?? env.FAKE_AGENT_RESUME_MODE ?? 'push')
    : (perTicket('FAKE_AGENT_MODES') ?? env.FAKE_AGENT_MODE ?? 'push'));
const claude = env.FAKE_AGENT_FORMAT === 'claude';
const issue = env.BLITZ_ISSUE ?? '0';

if (env.FAKE_AGENT_TRACE) {
  const blitz = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('BLITZ_')));
  const prompt = promptFile && existsSync(promptFile) ? readFileSync(promptFile, 'utf8') : undefined;
  appendFileSync(
    env.FAKE_AGENT_TRACE,
    `${JSON.stringify({ args, cwd: process.cwd(), mode, env: blitz, prompt })}\n`,
  );
}

const say = (text) => {
  if (claude)
    console.log(
      JSON.stringify({
        type: 'assistant',
        message: { content: [{ type: 'text', text }], usage: { input_tokens: 100, output_tokens: 20 } },
      }),
    );
  else console.log(text);
};
const git = (...a) => execFileSync('git', a, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const report = (status, uncertainties = ['none']) =>
  [
    'FINAL REPORT',
    'PR: none — branch pushed',
    'TESTS: fake tests — 1 passed',
    'REVIEW: none',
    'UNCERTAINTIES:',
    ...uncertainties.map((u) => `- ${u}`),
    'OUT-OF-SCOPE BUGS:',
    `- ${env.FAKE_AGENT_BUG ?? 'none'}`,
    `STATUS: ${status}`,
  ].join('\n');

const finish = (text) => {
  if (claude) {
    console.log(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        result: text,
        usage: { input_tokens: 1200, output_tokens: 340, cache_read_input_tokens: 50 },
      }),
    );
  } else console.log(text);
};

const commit = (file, content) => {
  writeFileSync(file, content);
  git('add', '--', file);
  // A resumed session may find its change already committed; then there is nothing new to commit.
  if (!git('status', '--porcelain', '--', file)) return;
  git(
    '-c',
    'user.name=Fake Agent',
    '-c',
    'user.email=fake@blitz.invalid',
    'commit',
    '--quiet',
    '-m',
    `fake agent: ${file}`,
  );
  if (env.FAKE_AGENT_TAG) git('tag', '-f', '-a', '-m', 'release', env.FAKE_AGENT_TAG);
};

// FAKE_AGENT_GIT_CONFIG `key=value` lines: set in the repository's config first (a worker laying a trap).
for (const line of (env.FAKE_AGENT_GIT_CONFIG ?? '').split('\n').filter(Boolean)) {
  const at = line.indexOf('=');
  git('config', line.slice(0, at), line.slice(at + 1));
}
// FAKE_AGENT_MODEL: the model the init event names, as claude prints the one it resolved.
const initModel = env.FAKE_AGENT_MODEL ? { model: env.FAKE_AGENT_MODEL } : {};
if (claude)
  console.log(JSON.stringify({ type: 'system', subtype: 'init', session_id: 'fake-session', ...initModel }));
if (promptFile && !existsSync(promptFile)) {
  console.error(`fake-agent: prompt file missing: ${promptFile}`);
  process.exit(2);
}
say(
  `fake agent (${mode}) on issue #${issue}: ${promptFile ? readFileSync(promptFile, 'utf8').split('\n')[0] : 'no prompt'}`,
);

const file = perTicket('FAKE_AGENT_FILES') ?? env.FAKE_AGENT_FILE ?? `fake-${issue}.txt`;
const content = env.FAKE_AGENT_CONTENT ?? `done by fake agent for #${issue}\n`;

const planning = mode === 'plan' && promptFile && readFileSync(promptFile, 'utf8').includes('PLANNING TASK');

switch (planning ? 'plan' : mode === 'plan' ? 'push' : mode) {
  case 'plan': {
    // FAKE_AGENT_PLAN_DELAY_MS: think this long first (a bot restart can then land mid-attempt).
    await sleep(Number(env.FAKE_AGENT_PLAN_DELAY_MS ?? 0));
    const prompt = readFileSync(promptFile, 'utf8');
    const size = /fake-size:\s*(XS|S|M|L)\b/.exec(prompt)?.[1] ?? 'M';
    const lines = [
      ...(prompt.includes('has no size yet') ? [`SIZE: ${size}`, ''] : []),
      `# Plan for #${issue}`,
      '',
      '1. Change the module the issue names.',
      '2. Test it.',
      ...(prompt.includes('Apply these findings') ? ['', 'Review findings applied.'] : []),
    ];
    commit('PLAN.md', `${lines.join('\n')}\n`);
    finish(report('done — plan pushed'));
    break;
  }
  case 'push':
  case 'uncertain': {
    commit(file, content);
    finish(
      report(
        'done — pushed',
        mode === 'uncertain' ? [env.FAKE_AGENT_UNCERTAINTY ?? 'Is this the right file?'] : ['none'],
      ),
    );
    break;
  }
  case 'append': {
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    commit(file, `${before}line for #${issue}\n`);
    finish(report('done — pushed'));
    break;
  }
  case 'conflict': {
    // Everyone rewrites the first line of README.md: two of these on one base conflict.
    const old = existsSync('README.md')
      ? readFileSync('README.md', 'utf8').split('\n').slice(1).join('\n')
      : '';
    commit('README.md', `# rewritten for #${issue}\n${old}`);
    finish(report('done — pushed'));
    break;
  }
  case 'merge-base':
  case 'merge-base-careless': {
    const base = env.BLITZ_BASE_BRANCH ?? 'main';
    const id = ['-c', 'user.name=Fake Agent', '-c', 'user.email=fake@blitz.invalid'];
    const merging = () => existsSync(git('rev-parse', '--git-path', 'MERGE_HEAD'));
    if (!merging()) {
      // origin/<base> as the runner last fetched it: the worker itself has no credential to fetch with.
      try {
        git(...id, 'merge', '--no-edit', `origin/${base}`);
      } catch {
        // conflicts: resolved below
      }
    }
    for (const f of git('diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean)) {
      if (mode === 'merge-base-careless') {
        git('add', '--', f);
        continue;
      }
      const kept = readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => !/^(<{7}|={7}|>{7})( |$)/.test(l));
      writeFileSync(f, kept.join('\n'));
      git('add', '--', f);
    }
    if (merging()) git(...id, 'commit', '--quiet', '--no-edit');
    finish(report('done — merged the base in, tests re-run'));
    break;
  }
  case 'dump-env': {
    // A prompt-injected worker hunting for secrets: its environment, every git setting and where it
    // comes from, the GIT_CONFIG_* entries, and the environment of the processes FAKE_AGENT_PEEK_PIDS
    // names (the bot). All of it goes to the log; then it delivers its work like any other.
    console.log(`uid=${process.getuid?.()} gid=${process.getgid?.()}`);
    console.log(`ENV ${JSON.stringify(env)}`);
    const run = (...a) => {
      try {
        return git(...a);
      } catch (err) {
        return `failed: ${err.message}`;
      }
    };
    console.log(`GIT-CONFIG\n${run('config', '--list', '--show-origin')}`);
    console.log(`GIT-REMOTE ${run('remote', '-v')}`);
    for (const pid of (env.FAKE_AGENT_PEEK_PIDS ?? '').split(',').filter(Boolean)) {
      try {
        console.log(`PROC ${pid} ${readFileSync(`/proc/${pid}/environ`, 'utf8').replaceAll('\0', '\n')}`);
      } catch (err) {
        console.log(`PROC ${pid} unreadable: ${err.code}`);
      }
    }
    commit(file, content);
    finish(report('done — committed'));
    break;
  }
  case 'broken':
    commit(file, `broken by fake agent for #${issue}\n`);
    finish(report('done — pushed'));
    break;
  case 'revise': {
    const revised = existsSync(file) ? (readFileSync(file, 'utf8').match(/^revised/gm) ?? []).length : 0;
    commit(file, `${content}${'revised\n'.repeat(revised + 1)}`);
    finish(report('done — revised and pushed'));
    break;
  }
  case 'commit':
    // Commits and stops: what every delivering mode does now that the runner pushes (aider's tests name it).
    commit(file, content);
    finish(report('done — committed'));
    break;
  case 'markers': {
    // Pushes a file that still holds merge-conflict markers, as a careless conflict resolution would.
    commit(file, '<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n');
    finish(report('done — pushed'));
    break;
  }
  case 'slow-push': {
    const delay = Number(perTicket('FAKE_AGENT_DELAYS') ?? env.FAKE_AGENT_DELAY_MS ?? 2000);
    for (let waited = 0; waited < delay; waited += 250) {
      await sleep(250);
      say(`working… ${waited}ms`);
    }
    commit(file, content);
    finish(report('done — pushed'));
    break;
  }
  case 'commit-then-stall':
    commit(file, content);
    await sleep(Number(env.FAKE_AGENT_DELAY_MS ?? 3_600_000));
    break;
  case 'stall':
    await sleep(Number(env.FAKE_AGENT_DELAY_MS ?? 3_600_000));
    break;
  case 'quiet-command': {
    const child = spawn('sleep', ['3600'], { stdio: 'ignore' });
    if (env.FAKE_AGENT_CHILD_PID_FILE) writeFileSync(env.FAKE_AGENT_CHILD_PID_FILE, String(child.pid));
    await new Promise((r) => child.on('exit', r));
    commit(file, content);
    finish(report('done — committed'));
    break;
  }
  case 'refused':
    console.log(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        result: 'I could not run the tests: running pytest needs your approval.',
        usage: { input_tokens: 300, output_tokens: 40 },
        permission_denials: [
          { tool_name: 'Bash', tool_use_id: 'toolu_1', tool_input: { command: 'pytest -q tests' } },
          { tool_name: 'Bash', tool_use_id: 'toolu_2', tool_input: { command: 'pytest -x' } },
        ],
      }),
    );
    break;
  case 'quiet-busy': {
    while (!existsSync(env.FAKE_AGENT_DONE_FILE ?? '/nonexistent')) {
      const until = Date.now() + 50;
      while (Date.now() < until) Math.sqrt(Math.random());
      await sleep(0);
    }
    commit(file, content);
    finish(report('done — committed'));
    break;
  }
  case 'disk-heavy': {
    // Waits for the test's go (it fills the disk meanwhile), then writes a big file and commits it:
    // on a full disk the write or git fails, and its words end up in the log as a real CLI's would.
    while (!existsSync(env.FAKE_AGENT_GO_FILE ?? '/nonexistent')) await sleep(50);
    try {
      commit(file, 'x'.repeat(Number(env.FAKE_AGENT_BIG_BYTES ?? 2 * 1024 * 1024)));
    } catch (err) {
      console.error(`fake agent: ${err.message}\n${err.stderr ?? ''}`);
      process.exit(1);
    }
    finish(report('done — committed'));
    break;
  }
  case 'crash':
    throw new Error('fake agent crashed');
  case 'fail':
    console.error('fake agent: tests failed: expected 200, got 500');
    process.exit(Number(env.FAKE_AGENT_EXIT ?? 3));
    break;
  case 'nothing':
    finish(report('done — (but nothing was pushed)'));
    break;
  case 'outage':
    console.error('API Error: Connection refused');
    process.exit(1);
    break;
  case 'limit':
    // claude's result line when a plan limit is hit: the reset time after the bar, in unix seconds.
    console.log(`Claude AI usage limit reached|${resetEpoch ?? Math.floor(Date.now() / 1000) + 3600}`);
    process.exit(1);
    break;
  default:
    console.error(`fake-agent: unknown mode ${mode}`);
    process.exit(64);
}
