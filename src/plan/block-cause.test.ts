import { describe, expect, it } from 'vitest';
import { type BlockCause, blockerKey, blockReasonOf, sameBlocker } from './block-cause.ts';

describe('a hard blocker is known by its cause, not its words', () => {
  it('the same forge refusal in other words is the same blocker', () => {
    const a: BlockCause = { kind: 'forge_refused', refusal: 'credentials', detail: 'Bad credentials' };
    const b: BlockCause = {
      kind: 'forge_refused',
      refusal: 'credentials',
      detail: 'Bad credentials (req 9f2)',
    };
    expect(blockReasonOf(a)).not.toBe(blockReasonOf(b));
    expect(sameBlocker(a, b)).toBe(true);
    expect(sameBlocker(a, { ...a, refusal: 'access' })).toBe(false);
  });

  it('two tools missing on different hosts are two blockers, whatever their words', () => {
    const on = (host: string): BlockCause => ({
      kind: 'missing_tool',
      tool: 'claude',
      entry: 'e',
      host: { host },
    });
    expect(sameBlocker(on('a'), on('a'))).toBe(true);
    expect(sameBlocker(on('a'), on('b'))).toBe(false);
    // A runner and a host of the same name read alike to nobody: typed, they are not the same place.
    const runner: BlockCause = { kind: 'missing_tool', tool: 'claude', entry: 'e', host: { runner: 'a' } };
    expect(sameBlocker(on('a'), runner)).toBe(false);
  });

  it('a cause read back with its keys in another order (PostgreSQL JSONB) is the same', () => {
    const a: BlockCause = {
      kind: 'config_invalid',
      path: 'blitz.yml',
      errors: [{ path: 'x', message: 'bad' }],
    };
    const reordered = JSON.parse(
      '{"errors":[{"message":"bad","path":"x"}],"path":"blitz.yml","kind":"config_invalid"}',
    );
    expect(blockerKey(reordered)).toBe(blockerKey(a));
    expect(sameBlocker(a, { ...a, errors: [{ path: 'y', message: 'bad' }] })).toBe(false);
  });

  it('a blocker kept before causes were kept is never the same as one met now', () => {
    const a: BlockCause = { kind: 'forge_refused', refusal: 'access', detail: 'no' };
    expect(sameBlocker(undefined, a)).toBe(false);
  });
});
