import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/config.js';
import { createTestContext, type TestContext } from './context.js';

/** Screenshots of the dashboard, for a person to look at (git-ignored). */
export const SCREENSHOTS = join(PROJECT_ROOT, 'artifacts', 'screenshots');

export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

export interface LiveContext extends TestContext {
  /** `http://127.0.0.1:<port>`: the app on a real port, for a browser. */
  base: string;
}

/** The test app (fresh database, worker) listening on 127.0.0.1 and a free port. */
export async function createLiveContext(env: Record<string, string> = {}): Promise<LiveContext> {
  const t = await createTestContext(env);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return Object.assign(t, { base: `http://127.0.0.1:${address.port}` });
}

// Its Lambda defaults minus what would make the test browser unlike a merchant's: one process makes
// browser contexts share cookies (two users in one test would be one), and web security must stay on.
const UNLIKE_A_REAL_BROWSER = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content']);

/** The Chromium shipped inside @sparticuz/chromium: runs here with nothing else installed. */
export async function launchBrowser(): Promise<Browser> {
  const args = sparticuz.args.filter((a) => !UNLIKE_A_REAL_BROWSER.has(a));
  return chromium.launch({ executablePath: await sparticuz.executablePath(), args, headless: true });
}

export async function newPage(browser: Browser, viewport: keyof typeof VIEWPORTS = 'desktop'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  // The app's own errors end up in the test output, where a failing step is explained.
  page.on('pageerror', (err) => console.error(`[browser] ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) console.error(`[browser console] ${msg.text()}`); });
  return { context, page };
}

/** `artifacts/screenshots/<name>-<viewport>.png`, full page. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const size = page.viewportSize();
  const kind = size && size.width <= VIEWPORTS.phone.width ? 'phone' : 'desktop';
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${kind}.png`), fullPage: true, animations: 'disabled', timeout: 30_000 });
}

/** Both widths of the page as it is now; the viewport is restored after. */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const vp of [VIEWPORTS.phone, VIEWPORTS.desktop]) {
    await page.setViewportSize(vp);
    await page.waitForTimeout(150);
    await screenshot(page, name);
  }
  if (before) await page.setViewportSize(before);
}
