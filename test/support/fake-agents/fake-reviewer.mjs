// A fake reviewer CLI for review-leg tests, run from a roster `custom` entry:
//   node fake-reviewer.mjs [options] [prompt_file]
// It reads the prompt on stdin (and, when given, from prompt_file, which must match), optionally
// records what it was given, then answers like a model would, or misbehaves:
//   --verdict WORD     first line `VERDICT: WORD` (default minor); `none` prints no verdict line
//   --verdict-from-prompt  the verdict is WORD from a `fake-review: WORD` line in the prompt, when
//                      there is one (plan reviews: the issue text picks each verdict)
//   --findings TEXT    the lines after the verdict (default one medium finding)
//   --format claude    answer as claude stream JSON instead of plain text
//   --sleep-ms N       wait N ms first (to outlive a timeout)
//   --exit N           print a line to stderr and exit with code N
//   --empty            print nothing and exit 0
//   --capture FILE     write { prompt, args, cwd, blitzEnv, envKeys } as JSON to FILE
//   --integration-mode-file FILE  for an integration review (not a PR's), FILE's first line overrides
//                      the answer while a test flips it: `exit` fails, `empty` says nothing, any other
//                      word answers `VERDICT: word` with no findings (`- none`); empty: as the options say
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opts = {};
const positional = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--empty') opts.empty = true;
  else if (a === '--verdict-from-prompt') opts['verdict-from-prompt'] = true;
  else if (a.startsWith('--')) opts[a.slice(2)] = args[++i];
  else positional.push(a);
}

const readStdin = async () => {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
};

const prompt = await readStdin();
const promptFile = positional[0];
if (promptFile && readFileSync(promptFile, 'utf8') !== prompt) {
  console.error('fake-reviewer: the prompt file and stdin differ');
  process.exit(9);
}
if (opts.capture) {
  const blitzEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BLITZ_')));
  writeFileSync(
    opts.capture,
    JSON.stringify({ prompt, args, cwd: process.cwd(), blitzEnv, envKeys: Object.keys(process.env).sort() }),
  );
}
const integrationMode =
  opts['integration-mode-file'] && prompt.startsWith('You review the accumulated work of a milestone run')
    ? readFileSync(opts['integration-mode-file'], 'utf8').split('\n')[0].trim()
    : '';
if (integrationMode === 'exit') {
  console.error('fake-reviewer: failing as the mode file asks');
  process.exit(1);
}
if (integrationMode === 'empty') process.exit(0);
if (integrationMode) {
  console.log(`VERDICT: ${integrationMode}\n- none`);
  process.exit(0);
}
if (opts['sleep-ms']) await new Promise((r) => setTimeout(r, Number(opts['sleep-ms'])));
if (opts.exit) {
  console.error('fake-reviewer: failing as asked');
  process.exit(Number(opts.exit));
}
if (opts.empty) process.exit(0);

const fromPrompt = opts['verdict-from-prompt'] ? /fake-review:\s*([A-Za-z]+)/.exec(prompt)?.[1] : undefined;
const verdict = fromPrompt ?? opts.verdict ?? 'minor';
const findings = opts.findings ?? '- [medium] src/a.ts:1 — fake finding';
const answer = `${verdict === 'none' ? '' : `VERDICT: ${verdict}\n`}${findings}`;
if (opts.format === 'claude') {
  console.log(JSON.stringify({ type: 'system', subtype: 'init' }));
  console.log(
    JSON.stringify({ type: 'result', result: answer, usage: { input_tokens: 10, output_tokens: 5 } }),
  );
} else console.log(answer);
