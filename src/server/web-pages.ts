// What the browser listener hands each page socket to: the page session (src/web/page-session.ts,
// rows to and from the page) with the page's tools (src/web/page-tools.ts: mail through the operator
// port, rows through the server's ClientDesk — the one every terminal client uses too — and the
// alerts taken from the server notifier's own sources). This file is the one place the server
// chooses the PageService; the tools live as long as the server and end before its rows do.
import type { ClientDesk } from '../app/client-desk.js';
import { packageVersion } from '../util/package-root.js';
import { systemClock } from '../util/clock.js';
import type { Disposable } from '../util/lifecycle.js';
import { PageSessions } from '../web/page-session.js';
import { WebPageTools } from '../web/page-tools.js';
import type { PageService } from '../web/web-contract.js';
import { followNotifySources } from './notify-sources.js';
import type { ServerCore } from './server-core.js';

export interface WebPages extends Disposable {
  pages: PageService;
}

export function webPagesFor(core: ServerCore, desk: ClientDesk, o: { workspace: string; defaultCwd: string; log: (line: string) => void }): WebPages {
  const { port, agents, fleet } = core;
  const tools = new WebPageTools({
    port,
    desk,
    defaultCwd: o.defaultCwd,
    followNotices: (notify) => followNotifySources(notify, { agents, fleet, port, clock: systemClock }),
    log: o.log,
  });
  return {
    pages: new PageSessions({ desk, port, tools, workspace: o.workspace, serverVersion: packageVersion() }),
    dispose: () => tools.dispose(),
  };
}
