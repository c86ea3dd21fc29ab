// Static files the status pages load: Mermaid's browser bundle from node_modules (no CDN: the bot may
// run offline) and the small page script. Read once, on first use.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let mermaidBundle: string | undefined;

/** mermaid's `dist/mermaid.min.js` (a classic script defining `window.mermaid`). */
export const mermaidScript = (): string => {
  mermaidBundle ??= readFileSync(require.resolve('mermaid/dist/mermaid.min.js'), 'utf8');
  return mermaidBundle;
};

export const mermaidVersion = (): string => {
  const pkg: unknown = JSON.parse(readFileSync(require.resolve('mermaid/package.json'), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown';
};

/**
 * The status pages' script: draw every `pre.mermaid`, then, when the body names an event stream, swap in
 * a fresh `#run` section on each `run-changed` event and draw again. `data-drawn` counts the draws so
 * a test (or a person with devtools) can see the page is live. A page marked `data-poll` (a running
 * attempt: a log file changes without a run event) is re-read every `pollMs` and its
 * `[data-live-part]` elements swapped, the live log kept scrolled to its end; once the fresh page is
 * no longer marked (the attempt ended) it is reloaded whole, with its final timeline.
 */
export const pollMs = 2000;

export const pageScript = `(() => {
  const body = document.body;
  const fetchPage = async () => {
    const res = await fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin', cache: 'no-store' });
    return res.ok ? new DOMParser().parseFromString(await res.text(), 'text/html') : undefined;
  };
  if (body.dataset.poll) {
    const tick = async () => {
      const doc = await fetchPage().catch(() => undefined);
      if (doc && !doc.body.dataset.poll) return location.reload();
      for (const fresh of doc ? doc.querySelectorAll('[data-live-part]') : []) {
        const current = document.getElementById(fresh.id);
        if (!current) continue;
        current.replaceWith(document.importNode(fresh, true));
        if (fresh.tagName === 'PRE') { const el = document.getElementById(fresh.id); el.scrollTop = el.scrollHeight; }
      }
      if (doc) body.dataset.polled = String(Number(body.dataset.polled || '0') + 1);
      setTimeout(tick, ${pollMs});
    };
    setTimeout(tick, ${pollMs});
  }
  const draw = async () => {
    if (window.mermaid) {
      window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
      await window.mermaid.run({ querySelector: 'pre.mermaid' });
    }
    body.dataset.drawn = String(Number(body.dataset.drawn || '0') + 1);
  };
  draw().catch((err) => { body.dataset.drawError = String(err); });
  const live = body.dataset.live;
  if (!live) return;
  let busy = Promise.resolve();
  const refresh = async () => {
    const doc = await fetchPage();
    if (!doc) return;
    const fresh = doc.querySelector('#run');
    const current = document.querySelector('#run');
    if (fresh && current) {
      current.replaceWith(document.importNode(fresh, true));
      await draw();
    }
  };
  const source = new EventSource(live);
  source.addEventListener('run-changed', () => { busy = busy.then(refresh).catch(() => {}); });
  source.addEventListener('open', () => { body.dataset.liveOpen = 'true'; });
})();
`;
