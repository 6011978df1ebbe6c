// What the browser listener hands each page socket to: the page session (src/web/page-session.ts,
// rows to and from the page, through the same desk and operator port a terminal client uses) and
// the page's tools. This file is the one place the server chooses them. The tools are issue #32's
// third part (src/web/page-tools.ts); until it is wired here, a page's tool requests are answered
// NO_TOOLS and it follows no pushes.
import type { ClientDesk } from '../app/client-desk.js';
import { packageVersion } from '../util/package-root.js';
import { toDisposable } from '../util/lifecycle.js';
import { PageSessions } from '../web/page-session.js';
import type { PageService, PageTools } from '../web/web-contract.js';
import type { ServerCore } from './server-core.js';

const NO_TOOLS: PageTools = {
  mutates: () => false,
  handle: async (method) => ({ error: { code: 'NO_TOOLS', message: `this server has no page tools (${method.slice(0, 64)})` } }),
  follow: () => toDisposable(() => undefined),
};

/** The page service; `desk` is read when the first page opens (the server builds its desk after the listener's settings). */
export function pageServiceFor(core: ServerCore, workspace: string, desk: () => ClientDesk): PageService {
  let sessions: PageSessions | null = null;
  return {
    open(socket, who) {
      sessions ??= new PageSessions({ desk: desk(), port: core.port, tools: NO_TOOLS, workspace, serverVersion: packageVersion() });
      return sessions.open(socket, who);
    },
  };
}
