// The page's tools in a real browser: a real hub in a temp SWB_HOME, the operator port, a real row
// fleet with real ptys and an agent supervisor, the server's own page session and page tools behind
// the real web listener (WebServing, serving the built page from dist/web/), and headless Chromium
// (Debian's `chromium`) driven by playwright-core. `npm run build` must have built the page.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { fleetDesk } from '../../src/app/client-desk.js';
import { operatorPort } from '../../src/hub/operator-port.js';
import { RowManager } from '../../src/rows/row-manager.js';
import { followNotifySources } from '../../src/server/notify-sources.js';
import { WebServing } from '../../src/server/web-serving.js';
import { AgentAuditTrail } from '../../src/supervisor/agent-audit-trail.js';
import { AgentSupervisor } from '../../src/supervisor/agent-supervisor.js';
import { RowFleet } from '../../src/supervisor/row-fleet.js';
import { systemClock } from '../../src/util/clock.js';
import { packageRoot } from '../../src/util/package-root.js';
import { PageSessions } from '../../src/web/page-session.js';
import { WebPageTools } from '../../src/web/page-tools.js';
import { deferCleanup } from '../helpers/cleanup.js';
import { startTestHub } from '../helpers/hub-harness.js';

/** Debian's chromium (the suite's runner installs it when missing); CHROMIUM overrides. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export async function startToolsServer() {
  const staticDir = join(packageRoot(), 'dist', 'web');
  if (!existsSync(join(staticDir, 'app.js'))) throw new Error(`the page is not built (${staticDir}/app.js): run npm run build`);
  const { hub, paths } = await startTestHub();
  const port = operatorPort(hub.core);
  const tokens = new Map<string, string>();
  const rows = new RowManager({
    socketPath: paths.socketPath,
    mintToken: (name) => {
      const r = port.registerRow(name);
      if (!r.ok) throw new Error(r.error.message);
      tokens.set(name, r.token);
      return r.token;
    },
  });
  const agents = new AgentSupervisor({ profiles: loadProfiles({ configDir: '/nonexistent-swb-config' }), mail: port, audit: new AgentAuditTrail(null) });
  const fleet = new RowFleet({ rows, port, agents });
  const desk = fleetDesk(fleet);
  const tools = new WebPageTools({ port, desk, followNotices: (notify) => followNotifySources(notify, { agents, fleet, port, clock: systemClock }) });
  const pages = new PageSessions({ desk, port, tools, workspace: 'tools-test', serverVersion: '0.0.0-test' });
  const serving = new WebServing({ paths, pages, rowOfToken: (t) => hub.core.sessions.rowOfToken(t), staticDir, log: () => undefined });
  deferCleanup('tools server', () => {
    serving.dispose();
    tools.dispose();
    fleet.dispose();
    agents.dispose();
    rows.dispose();
  });
  const loginUrl = async (readOnly = false): Promise<string> => {
    const r = await serving.web(readOnly ? { readOnly: true } : {});
    if ('error' in r) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.ok.loginUrl!;
  };
  return { hub, paths, port, fleet, agents, tools, tokens, loginUrl };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium (test/browser's runner does)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  deferCleanup('browser', () => browser.close());
  return browser;
}

/** A page logged in with `url` (the token becomes a cookie), its tools panel open on `tab`. */
export async function openTools(browser: Browser, url: string, tab: 'mail' | 'notes' | 'compose' | 'row', viewport = { width: 1400, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('#top button.tools').click();
  await page.locator(`#tools .tools-tab[data-tab="${tab}"]`).click();
  return page;
}
