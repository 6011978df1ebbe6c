// The page's tools, server side (PageTools, web-contract.ts): the mail and row tools routed by name,
// each request checked before it runs — the method exists, the credential is the operator's, a
// read-only page asks for nothing that changes anything, the params pass the method's schema — and
// answered with a value or a typed error, never an exception. And the pushes a page follows: mail,
// receipts, peers, the notification list, alerts for browser notifications, wake policies, usage.
// The pushes are taken once for all pages (one subscription to each source, each item converted
// once), and only while a page is open: with no page, an accepted mail costs nothing more here.
import type { ClientDesk } from '../app/client-desk.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { OPERATOR } from '../protocol/handle.js';
import type { Clock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { check } from '../util/schema.js';
import { emptyParams } from '../protocol/method-params.js';
import { MAIL_TOOLS } from './mail-tools.js';
import { PageAlerts, type FollowNotices } from './page-alerts.js';
import { PageNotes } from './page-notes.js';
import type { ServerToPage, ToolError } from './page-protocol.js';
import { rowTools } from './row-tools.js';
import { toolError, type ToolContext, type ToolMethod, type ToolTable } from './tool-method.js';
import type { ToolPushes, ToolPushTopic } from './tool-protocol.js';
import type { PageTools, WebIdentity } from './web-contract.js';

export interface PageToolsOptions {
  port: OperatorPort;
  desk: ClientDesk;
  /** Where a new row runs when the page leaves the directory empty (default: the server's cwd). */
  defaultCwd?: string;
  /** The server notifier's sources, for the pages' alerts (absent: only rows' exits are alerted). */
  followNotices?: FollowNotices;
  /** The server's log: a tool that threw (a bug) is logged there and answered INTERNAL. */
  log?: (line: string) => void;
  clock?: Clock;
}

export class WebPageTools implements PageTools, Disposable {
  private readonly table: ToolTable;
  private readonly ctx: ToolContext;
  private readonly feed = new Emitter<ServerToPage>();
  private followers = 0;
  /** The sources the pages follow, taken while any page is open (no page: nothing more per mail). */
  private live: { notes: PageNotes; lifetime: DisposableStore } | null = null;
  /** A peer change is pushed once per burst (a restart of many rows changes many peers). */
  private peersQueued = false;

  constructor(private readonly o: PageToolsOptions) {
    const { port, desk } = o;
    this.ctx = { port, desk, note: (kind, text, row) => this.live?.notes.note(kind, text, row) };
    this.table = {
      ...MAIL_TOOLS,
      ...rowTools(o.defaultCwd ?? process.cwd()),
      notes: { params: emptyParams, mutates: false, run: () => ({ ok: { notes: this.live?.notes.list() ?? [] } }) },
    };
  }

  mutates(method: string): boolean {
    return this.method(method)?.mutates ?? false;
  }

  async handle(method: string, params: unknown, who: WebIdentity): Promise<{ ok: unknown } | { error: ToolError }> {
    const tool = this.method(method);
    if (!tool) return toolError('UNKNOWN_METHOD', `The page has no tool ${JSON.stringify(method.slice(0, 64))}.`);
    if (who.handle !== OPERATOR) return toolError('FORBIDDEN', 'The page’s tools are the operator’s; this credential speaks as a row.');
    if (who.readOnly && tool.mutates) return toolError('READ_ONLY', `This page is read-only: ${method} changes something, and is refused.`);
    const checked = check(tool.params(), params ?? {});
    if (!checked.ok) return toolError('BAD_REQUEST', `${method}: ${checked.error.message}`);
    try {
      return await tool.run(checked.value as never, this.ctx);
    } catch (err) {
      this.o.log?.(`web tool ${method} failed: ${(err as Error).stack ?? String(err)}`);
      return toolError('INTERNAL', `${method} failed inside the server; its log says why.`);
    }
  }

  follow(push: (message: ServerToPage) => void, who: WebIdentity): Disposable {
    if (who.handle !== OPERATOR) return toDisposable(() => undefined);
    const listening = this.feed.event(push);
    if (this.followers++ === 0) this.live = this.goLive();
    return toDisposable(() => {
      listening.dispose();
      if (--this.followers === 0) {
        this.live?.lifetime.dispose();
        this.live = null;
      }
    });
  }

  /** Each source once, for every page. */
  private goLive(): { notes: PageNotes; lifetime: DisposableStore } {
    const { port, desk } = this.o;
    const lifetime = new DisposableStore();
    const clock = this.o.clock ? { clock: this.o.clock } : {};
    const notes = lifetime.add(new PageNotes({ port, desk, ...clock }));
    const alerts = lifetime.add(new PageAlerts({ desk, ...(this.o.followNotices ? { followNotices: this.o.followNotices } : {}), ...clock }));
    lifetime.add(
      port.onMail((m) =>
        // A message just accepted: every recipient's receipt is where the hub put it (receipt pushes move it on).
        this.push('mail', { ...m, receipts: m.to.map((to) => ({ to, state: m.state ?? 'accepted', woken: false })) }),
      ),
    );
    lifetime.add(port.onReceipt((r) => this.push('receipt', r)));
    lifetime.add(port.onPeer(() => this.peersChanged()));
    lifetime.add(notes.onNote((n) => this.push('note', n)));
    lifetime.add(alerts.onAlert((a) => this.push('alert', a)));
    lifetime.add(desk.fleet.onPolicy((p) => this.push('wake', p)));
    if (desk.usage) lifetime.add(desk.usage.onUsage((u) => this.push('usage', u)));
    return { notes, lifetime };
  }

  private method(name: string): ToolMethod | undefined {
    return Object.hasOwn(this.table, name) ? (this.table[name as keyof ToolTable] as ToolMethod | undefined) : undefined;
  }

  private push<T extends ToolPushTopic>(topic: T, data: ToolPushes[T]): void {
    this.feed.fire({ t: 'push', topic, data });
  }

  private peersChanged(): void {
    if (this.peersQueued) return;
    this.peersQueued = true;
    queueMicrotask(() => {
      this.peersQueued = false;
      if (this.live) this.push('peers', { peers: this.o.port.peers() });
    });
  }

  dispose(): void {
    this.live?.lifetime.dispose();
    this.live = null;
    this.feed.dispose();
  }
}
