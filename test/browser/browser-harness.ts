// What the browser suite (and bench/web.mjs's page side) stands on: a real workspace server in a
// temp SWB_HOME with rows running real shells (started by a real `swb` terminal client), its web
// listener started with `swb web` (the operator's URL, or a view-only one), and Debian's chromium,
// headless, driven by playwright-core. test/browser/run.mjs installs chromium when it is missing.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { WebAnswer } from '../../src/hub/server-control.js';
import { deferCleanup } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

/** Where Debian's chromium is (SWB_CHROMIUM overrides). */
export function chromiumPath(): string {
  const candidates = [process.env.SWB_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error('chromium is not installed: run the suite with `node test/browser/run.mjs` (it installs it with apt-get)');
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in a container has no user namespace for chromium's sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  deferCleanup('chromium', () => browser.close());
  return browser;
}

export interface WebWorkspace {
  home: TempHome;
  terminal: TerminalHarness;
  /** A fresh `swb web` URL, /login#token=… (its login page trades the token for the cookie and the page key). */
  login(opts?: { readOnly?: boolean }): Promise<string>;
}

/** A server whose rows are `rows` (name → shell line), its dashboard up in a real terminal client. */
export async function startWebWorkspace(rows: Record<string, string>, opts: { cols?: number; rows?: number } = {}): Promise<WebWorkspace> {
  const home = createTempHome();
  const terminal = startSwb({ home, args: Object.entries(rows).map(([name, line]) => `${name}=${line}`), cols: opts.cols ?? 160, rows: opts.rows ?? 48 });
  await terminal.waitForText(/enter attach/, { timeoutMs: 20_000 });
  const login = async ({ readOnly = false } = {}) => {
    const r = await runSwb(['web', '--json', '--no-qr', ...(readOnly ? ['--read-only'] : [])], { home, timeoutMs: 20_000 });
    if (r.status !== 0) throw new Error(`swb web failed: ${r.stderr}`);
    const answer = JSON.parse(r.stdout) as WebAnswer;
    return answer.loginUrl!;
  };
  return { home, terminal, login };
}

export async function openPage(browser: Browser, url: string, viewport = { width: 1400, height: 900 }, mobile = false): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, ...(mobile ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
  const page = await context.newPage();
  // What the page's console and the CSP say: a refused inline style or script is a failure.
  const problems: string[] = [];
  page.on('console', (m) => (m.type() === 'error' || /Content Security Policy/i.test(m.text())) && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  return { context, page, problems };
}

/** A row's text as the page's terminal holds it (screen and scrollback). */
export function pageRowText(page: Page, name: string): Promise<string> {
  return page.evaluate((n) => {
    const swb = (window as unknown as { swbPage?: { model: { hasTerm(n: string): boolean; term(n: string): { text(): string } } } }).swbPage;
    return swb && swb.model.hasTerm(n) ? swb.model.term(n).text() : '';
  }, name);
}
