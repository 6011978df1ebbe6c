// What the browser listener hands each page socket to. The page session (src/web/page-session.ts,
// rows to and from the page) and the page's tools are built by their own parts of issue #32; until
// they are wired here, a page hears `hello` (so it knows who it is and whether it is read-only) and
// nothing more. This file is the one place the server chooses the PageService.
import { packageVersion } from '../util/package-root.js';
import { toDisposable } from '../util/lifecycle.js';
import { PAGE_PROTOCOL_VERSION } from '../web/page-protocol.js';
import type { PageService } from '../web/web-contract.js';
import type { ServerCore } from './server-core.js';

export function pageServiceFor(core: ServerCore): PageService {
  return {
    open(socket, who) {
      socket.send({ t: 'hello', version: PAGE_PROTOCOL_VERSION, workspace: core.runDir, readOnly: who.readOnly, serverVersion: packageVersion() });
      return toDisposable(() => undefined);
    },
  };
}
