// How tests start blitz-bot as a process: the compiled entry (dist/main.js, built by the global setup
// test/support/build-dist.ts), as the `blitz-bot` bin runs it, not through tsx.
import { fileURLToPath } from 'node:url';

export const mainJs = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** argv for `blitz-bot ARGS…`. */
export const blitzBotArgv = (...args: string[]): string[] => [process.execPath, mainJs, ...args];
