// Slow for a reason: real headless Chromium following a run to a running worker's attempt.
// A person logs in at the runs list, follows the live run to its running attempt and watches the
// worker's log tail live: lines the worker appends appear on the open page, a secret among them
// redacted by the same reader the other pages use, and the page settles on the outcome once the
// attempt ends.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveRunId, runningAttempt } from '../fixtures/runs/finished-run.ts';
import { createStatusApp, listen, type StatusApp, statusToken } from '../fixtures/runs/status-app.ts';
import { launchBrowser, screenshot, type TestBrowser } from '../support/browser.ts';
import { removeDir, tempDir } from '../support/git.ts';

declare const document: { getElementById(id: string): { textContent: string | null } | null };

const secret = 'ghs_liveLogSecret0123456789abcdef';
let workspace: string;
let logPath: string;
let status: StatusApp;
let server: { url: string; close(): Promise<void> };
let browser: TestBrowser;

beforeAll(async () => {
  workspace = tempDir('blitz-live-log-');
  logPath = join(workspace, 'worker.log');
  writeFileSync(logPath, 'worker started: reading the issue\n');
  writeFileSync(join(workspace, 'prompt.md'), 'Solve #7.\n');
  status = await createStatusApp({ workspace, secrets: [secret] });
  await status.runs.ledger.create(runningAttempt({ logPath, promptPath: join(workspace, 'prompt.md') }));
  server = await listen(status.app);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await status?.close();
  if (workspace) removeDir(workspace);
});

const liveLog = (page: Page) => page.evaluate(() => document.getElementById('live-log')?.textContent ?? '');

describe('live log in Chromium', { timeout: 90_000 }, () => {
  it('logs in, follows a run from the runs list to its running attempt and sees log lines appear', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForURL(/\/login\?next=%2F$/);
    await page.fill('input[name=token]', statusToken);
    await Promise.all([page.waitForURL(`${server.url}/`), page.click('button[type=submit]')]);

    await Promise.all([
      page.waitForURL(`${server.url}/runs/${liveRunId}`),
      page.click(`a[href="/runs/${liveRunId}"]`),
    ]);
    const attemptUrl = `${server.url}/runs/${liveRunId}/attempts/1`;
    await Promise.all([page.waitForURL(attemptUrl), page.click('#attempts tr[data-attempt="1"] a')]);
    expect(await page.textContent('#outcome')).toBe('running');
    expect(await liveLog(page)).toBe('worker started: reading the issue');

    appendFileSync(logPath, `running the tests\npushing with ${secret}\n`);
    await page.waitForFunction(
      () => (document.getElementById('live-log')?.textContent ?? '').includes('running the tests'),
      undefined,
      { timeout: 30_000 },
    );
    const shown = await liveLog(page);
    expect(shown).toContain('pushing with [redacted]');
    expect(shown).not.toContain(secret);
    expect(page.url()).toBe(attemptUrl);
    await screenshot(page, 'status-attempt-live-log');

    // The attempt ends: the page reloads itself once and shows the outcome, with no live log left.
    await status.runs.ledger.update('att-live-7', {
      endedAt: new Date().toISOString(),
      exitCode: 0,
      outcome: 'solved',
    });
    await page.waitForSelector('#outcome:text-is("solved")', { timeout: 30_000 });
    expect(await page.locator('#live-log').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await page.close();
  });
});
