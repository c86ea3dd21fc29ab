// What heap the bot runs with. `npm start` and the image give node `--max-old-space-size=1024`
// (package.json, Dockerfile; container-files.test.ts keeps them equal); the `blitz-bot` bin starts
// plain `node`, whose default cap grows with the host's memory. A shebang cannot carry the flag
// portably (`env -S` is not in every `env`), so `serve` says in its start log what heap it runs
// with, and how to give the bin the same cap when it runs with a much larger one.
import { getHeapStatistics } from 'node:v8';

/** The old-space cap, in MB, that `npm start` and the image give the bot. */
export const INTENDED_OLD_SPACE_MB = 1024;
/** Above the intended cap by this much, the cap was not given (V8 adds its young generation to it). */
const SLACK_MB = 256;

/** This process's heap limit in MB (old space plus young generation), as V8 reports it. */
export const heapLimitMb = (): number => Math.round(getHeapStatistics().heap_size_limit / (1024 * 1024));

/** The start log's words on a heap limit well above the intended cap; undefined when it is near or below. */
export const heapHint = (limitMb: number): string | undefined =>
  limitMb > INTENDED_OLD_SPACE_MB + SLACK_MB
    ? `The bot runs with a ${limitMb} MB heap limit; npm start and the image cap it at ${INTENDED_OLD_SPACE_MB} MB, ` +
      `under which it peaks lower. Started as the blitz-bot bin, give node the same cap: ` +
      `NODE_OPTIONS=--max-old-space-size=${INTENDED_OLD_SPACE_MB} blitz-bot serve`
    : undefined;
