// Slow for a reason: real headless Chromium drawing the status pages.
// The status pages in real headless Chromium: the finished fixture run's DAG drawn by Mermaid as SVG
// (one node per issue, filled in its state's colour), the attempt replay's tool calls, a live update
// over SSE when the run changes, and the refusal without the token. Screenshots go to test-artifacts/.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedRunId, finishedStates, hostileTitle } from '../fixtures/runs/finished-run.ts';
import { createStatusApp, listen, type StatusApp, statusToken } from '../fixtures/runs/status-app.ts';
import { launchBrowser, screenshot, type TestBrowser } from '../support/browser.ts';

// The few DOM names the code run inside the page uses, declared here rather than loading the DOM lib
// for the whole program (it would change Node's stream types for everyone).
declare const document: { body: { dataset: Record<string, string | undefined> } };
declare const getComputedStyle: (el: unknown) => { fill: string };
declare const window: { __pwned?: number };

// The dashboard's fills (src/dashboard/mermaid.ts), as the browser reports computed colours.
const fills: Record<string, string> = {
  closed: 'rgb(45, 164, 78)',
  merged: 'rgb(218, 251, 225)',
  failed: 'rgb(255, 235, 233)',
  stalled: 'rgb(255, 241, 229)',
};

let status: StatusApp;
let server: { url: string; close(): Promise<void> };
let browser: TestBrowser;
const dialogs: string[] = [];

beforeAll(async () => {
  status = await createStatusApp();
  server = await listen(status.app);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await status?.close();
});

const watch = (page: Page): Page => {
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return page;
};

const logIn = async (page: Page, path: string): Promise<void> => {
  await page.goto(`${server.url}${path}`);
  await page.waitForURL(/\/login\?next=/);
  await page.fill('input[name=token]', statusToken);
  await Promise.all([page.waitForURL(`${server.url}${path}`), page.click('button[type=submit]')]);
};

/** Each drawn node's issue number, classes and computed fill. */
const drawnNodes = (page: Page) =>
  page.$$eval('#dag svg g.node', (nodes) =>
    nodes.map((n) => {
      const shape = n.querySelector('rect, path, polygon, circle');
      return {
        id: n.id,
        classes: n.getAttribute('class') ?? '',
        fill: shape ? getComputedStyle(shape).fill : '',
        text: n.textContent ?? '',
      };
    }),
  );

const waitForDraw = (page: Page, count: number) =>
  page.waitForFunction((n) => Number(document.body.dataset.drawn ?? '0') >= n, count, { timeout: 30_000 });

describe('status page in Chromium', { timeout: 90_000 }, () => {
  it('refuses the run page without the token: the login form, no run data, a wrong token refused', async () => {
    await browser.context.clearCookies();
    const page = watch(await browser.newPage());
    try {
      const response = await page.goto(`${server.url}/runs/${finishedRunId}`);
      expect(page.url()).toBe(`${server.url}/login?next=${encodeURIComponent(`/runs/${finishedRunId}`)}`);
      expect(response?.status()).toBe(200);
      const body = (await page.textContent('body')) ?? '';
      expect(body).not.toContain('Parse CSV');
      await page.fill('input[name=token]', 'wrong-token');
      await page.click('button[type=submit]');
      await page.waitForSelector('#login-error');
      expect(page.url()).toBe(`${server.url}/login`);
      const api = await page.evaluate(
        async (url) => (await fetch(url, { headers: { accept: 'application/json' } })).status,
        `${server.url}/runs/${finishedRunId}`,
      );
      expect(api).toBe(401);
      await screenshot(page, 'status-refused');
    } finally {
      await page.close();
    }
  });

  it('draws the finished run as SVG: one node per issue in its state colour, hostile title inert', async () => {
    const page = watch(await browser.newPage());
    await logIn(page, `/runs/${finishedRunId}`);
    await waitForDraw(page, 1);
    expect(await page.evaluate(() => document.body.dataset.drawError ?? '')).toBe('');
    const nodes = await drawnNodes(page);
    expect(nodes).toHaveLength(5);
    for (const [n, state] of Object.entries(finishedStates)) {
      const node = nodes.find((x) => new RegExp(`-i${n}-`).test(x.id));
      expect(node, `node for #${n}`).toBeDefined();
      expect(node!.classes.split(/\s+/)).toContain(state);
      expect(node!.fill, `fill of #${n} (${state})`).toBe(fills[state]);
    }
    expect(nodes.find((x) => /-i3-/.test(x.id))!.text).toContain('</script><script>window.__pw');
    expect(await page.locator('#dag svg .edgePath, #dag svg path.flowchart-link').count()).toBe(4);
    expect(await page.textContent('tr[data-issue="3"] td.title')).toBe(hostileTitle);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await screenshot(page, 'status-run-finished');
    await page.close();
  });

  it('replays an attempt with its tool calls collapsed until opened', async () => {
    const page = watch(await browser.newPage());
    await page.goto(`${server.url}/runs/${finishedRunId}/attempts/3`);
    const tools = page.locator('details.tool');
    expect(await tools.count()).toBe(4);
    expect(await tools.evaluateAll((els) => els.map((e) => e.getAttribute('data-tool')))).toEqual([
      'Read',
      'Edit',
      'Bash',
      'Bash',
    ]);
    const edit = page.locator('details[data-tool="Edit"]');
    expect(await edit.locator('pre').first().isVisible()).toBe(false);
    await edit.locator('summary').click();
    expect(await edit.locator('pre').last().textContent()).toBe('The file src/parse.ts has been updated.');
    expect(await page.textContent('#final')).toContain('<img src=x onerror=alert(1)>');
    expect(await page.textContent('#tokens')).toBe('6300 in · 210 out · 300 cache');
    expect(dialogs).toEqual([]);
    await screenshot(page, 'status-attempt');
    await page.close();
  });

  it('draws the downloadable report by itself: inline Mermaid allowed by its CSP hashes, no request out', async () => {
    const page = watch(await browser.newPage());
    const requests: string[] = [];
    const cspErrors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto(`${server.url}/runs/${finishedRunId}/report.html`);
    await page.waitForSelector('#dag svg g.node', { timeout: 30_000 });
    const nodes = await drawnNodes(page);
    expect(nodes).toHaveLength(5);
    expect(nodes.find((x) => /-i4-/.test(x.id))?.fill).toBe(fills.failed);
    expect(cspErrors).toEqual([]);
    expect(requests).toEqual([`${server.url}/runs/${finishedRunId}/report.html`]);
    expect(await page.locator('details.attempt').count()).toBe(9);
    expect(await page.locator('details.attempt[data-attempt="3"] details.tool').count()).toBe(4);
    expect(dialogs).toEqual([]);
    await screenshot(page, 'status-report');
    await page.close();
  });

  it('updates the open run page when the run changes: publish, SSE, new row and node colour', async () => {
    const page = watch(await browser.newPage());
    await page.goto(`${server.url}/runs/${finishedRunId}`);
    await waitForDraw(page, 1);
    await page.waitForFunction(() => document.body.dataset.liveOpen === 'true', undefined, {
      timeout: 30_000,
    });
    expect(await page.getAttribute('tr[data-issue="4"]', 'data-state')).toBe('failed');
    await status.runs.upsertRunIssue(finishedRunId, 'acme/app', 4, { state: 'merged', mergedSha: 'def5678' });
    status.events.publish(finishedRunId);
    await page.waitForSelector('tr[data-issue="4"][data-state="merged"]', { timeout: 30_000 });
    await waitForDraw(page, 2);
    const node = (await drawnNodes(page)).find((x) => /-i4-/.test(x.id));
    expect(node?.fill).toBe(fills.merged);
    expect(await page.textContent('#run-progress')).toContain('4/5');
    await screenshot(page, 'status-run-live-update');
    await page.close();
  });
});
