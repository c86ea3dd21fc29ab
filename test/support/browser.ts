// Real headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by playwright-core
// (never a downloaded browser), a fresh profile per launch, screenshots under test-artifacts/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { removeDir, tempDir } from './git.ts';

export const chromiumPath = '/usr/bin/chromium';

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export const launchBrowser = async (): Promise<TestBrowser> => {
  if (!existsSync(chromiumPath))
    throw new Error(
      `${chromiumPath} is missing: install Debian's chromium (apt-get install -y --no-install-recommends chromium), as .ci/run does`,
    );
  const profile = tempDir('blitz-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      removeDir(profile);
    },
  };
};

export const artifactsDir = join(process.cwd(), 'test-artifacts');

/** Saves a full-page screenshot as test-artifacts/<name>.png and returns the path. */
export const screenshot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
};
