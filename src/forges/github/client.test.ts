import { describe, expect, it } from 'vitest';
import { githubBaseUrl } from './client.ts';

describe('githubBaseUrl', () => {
  it('is api.github.com without a host, and /api/v3 on a GitHub Enterprise Server host', () => {
    expect(githubBaseUrl({})).toBe('https://api.github.com');
    expect(githubBaseUrl({ host: 'ghe.corp.example' })).toBe('https://ghe.corp.example/api/v3');
    expect(githubBaseUrl({ host: '127.0.0.1:8080', protocol: 'http' })).toBe('http://127.0.0.1:8080/api/v3');
  });
});
