import { describe, expect, it } from 'vitest';
import { createKeyedRunner } from './keyed-runner.ts';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('keyed runner', () => {
  it('never runs two passes of one key at once, and folds requests made while one is queued', async () => {
    const k = createKeyedRunner(() => {});
    const gate = deferred();
    let running = 0;
    let most = 0;
    let passes = 0;
    const pass = async () => {
      running++;
      most = Math.max(most, running);
      passes++;
      if (passes === 1) await gate.promise;
      running--;
    };
    const first = k.request('run', pass);
    await Promise.resolve();
    // While the first pass runs: three requests share one follow-up pass.
    const a = k.request('run', pass);
    const b = k.request('run', pass);
    const c = k.request('run', pass);
    expect(a).toBe(b);
    expect(b).toBe(c);
    gate.resolve();
    await Promise.all([first, a]);
    await k.idle();
    expect(most).toBe(1);
    expect(passes).toBe(2);
  });

  it('runs different keys side by side, and an exclusive step waits for the running pass', async () => {
    const k = createKeyedRunner(() => {});
    const gate = deferred();
    const order: string[] = [];
    void k.request('a', async () => {
      order.push('a:start');
      await gate.promise;
      order.push('a:end');
    });
    await k.request('b', async () => {
      order.push('b');
    });
    const ex = k.exclusive('a', async () => {
      order.push('pause');
      return 7;
    });
    gate.resolve();
    expect(await ex).toBe(7);
    expect(order).toEqual(['a:start', 'b', 'a:end', 'pause']);
  });

  it('a failing pass is reported and the key stays usable', async () => {
    const errors: unknown[] = [];
    const k = createKeyedRunner((_key, err) => errors.push(err));
    await k.request('x', async () => {
      throw new Error('boom');
    });
    let ran = false;
    await k.request('x', async () => {
      ran = true;
    });
    expect(errors).toHaveLength(1);
    expect(ran).toBe(true);
    await k.idle();
  });
});
