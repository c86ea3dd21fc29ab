import { describe, expect, it } from 'vitest';
import { createEtagCache } from './etag-cache.ts';

describe('etag cache', () => {
  it('makes a repeated GET conditional on the validators its last answer gave', () => {
    const cache = createEtagCache<string>();
    expect(cache.conditionalHeaders('a')).toEqual({});
    cache.set('a', { etag: 'W/"1"', value: 'x' });
    cache.set('b', { lastModified: 'Wed, 02 Dec 2026 10:00:00 GMT', value: 'y' });
    cache.set('c', { etag: '"2"', lastModified: 'Wed, 02 Dec 2026 11:00:00 GMT', value: 'z' });
    expect(cache.conditionalHeaders('a')).toEqual({ 'if-none-match': 'W/"1"' });
    expect(cache.conditionalHeaders('b')).toEqual({ 'if-modified-since': 'Wed, 02 Dec 2026 10:00:00 GMT' });
    expect(cache.conditionalHeaders('c')).toEqual({
      'if-none-match': '"2"',
      'if-modified-since': 'Wed, 02 Dec 2026 11:00:00 GMT',
    });
    expect(cache.get('c')?.value).toBe('z');
  });

  it('keeps no answer without a validator, and drops the least recently used past its size', () => {
    const cache = createEtagCache<string>(2);
    cache.set('none', { value: 'x' });
    expect(cache.size).toBe(0);
    cache.set('a', { etag: '"a"', value: 'a' });
    cache.set('b', { etag: '"b"', value: 'b' });
    cache.get('a');
    cache.set('c', { etag: '"c"', value: 'c' });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.value).toBe('a');
    expect(cache.get('c')?.value).toBe('c');
    cache.delete('a');
    expect(cache.conditionalHeaders('a')).toEqual({});
  });
});
