import { describe, expect, it } from 'vitest';
import { forgeWebLinks } from './web-links.ts';

// A repository name comes from a webhook or a command: whatever it is, a link stays under the forge's
// address (the browser resolves `..`, `%2e%2e` is left to the forge, `/` and `?` cannot add segments).
const bases = { github: 'https://github.com', gitea: 'https://git.example.com/gitea/' };
const links = forgeWebLinks(bases);
const hostile = [
  '../evil',
  'acme/..',
  './app',
  '../..',
  'acme/../../evil',
  '..',
  'acme',
  'acme/app/extra',
  '/evil/app',
  '//evil.example/app',
  'https://evil.example/app',
  'acme/app?x=1',
  'acme/app#frag',
  'acme\\..\\evil',
  'acme/%2e%2e',
  'acme/ap p',
  '',
];

describe('forge web links', () => {
  it('a repository name like ../evil gives no link at all', () => {
    expect(links('github', '../evil')).toBeUndefined();
    expect(links('gitea', 'acme/..')).toBeUndefined();
    expect(links('gitea', './app')).toBeUndefined();
  });

  it.each(hostile)('%j never makes a link outside the forge', (repo) => {
    for (const forge of ['github', 'gitea'] as const) {
      const base = new URL(bases[forge].replace(/\/?$/, '/'));
      const made = links(forge, repo);
      for (const href of made ? [made.issue(1), made.pull(2)] : []) {
        const url = new URL(href);
        expect(url.origin).toBe(base.origin);
        expect(url.pathname.startsWith(base.pathname)).toBe(true);
        // Exactly owner/name/(issues|pull|pulls)/N under the base: nothing climbed, nothing added.
        const rest = url.pathname.slice(base.pathname.length).split('/');
        expect(rest).toHaveLength(4);
        expect(rest.slice(0, 2).some((p) => p === '.' || p === '..')).toBe(false);
        expect(url.search + url.hash).toBe('');
      }
    }
  });

  it('a well-formed name links under the base, a Gitea in a sub-path included', () => {
    expect(links('gitea', 'acme/my.app')?.issue(7)).toBe(
      'https://git.example.com/gitea/acme/my.app/issues/7',
    );
    expect(links('github', 'acme/app')?.pull(3)).toBe('https://github.com/acme/app/pull/3');
  });
});
