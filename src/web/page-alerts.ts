// What a page may turn into a browser notification (opt-in, while it is open): "waiting for you",
// mail to the operator, a held wake — taken from the server notifier's own sources (the server hands
// in src/server/notify-sources.ts's followNotifySources, a floor above this one), so the page is told
// exactly what the desktop would be — and every row that exits (the notifier tells only of a
// non-zero exit; a page watching its rows wants each one). A row the operator muted is muted here
// too. One per web server, shared by its pages.
import type { ClientDesk } from '../app/client-desk.js';
import type { NotifyEvent } from '../notify/notify-event.js';
import type { Row } from '../rows/row.js';
import { systemClock, type Clock } from '../util/clock.js';
import { DisposableMap } from '../util/disposable-map.js';
import { Emitter } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { sayLine } from './tool-method.js';
import type { PageAlert } from './tool-protocol.js';

/** Follows the server notifier's sources (followNotifySources over the server's agents, fleet and port). */
export type FollowNotices = (notify: (event: NotifyEvent) => void) => Disposable;

export class PageAlerts implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly alerted = this.lifetime.add(new Emitter<PageAlert>());
  readonly onAlert = this.alerted.event;

  constructor(private readonly o: { desk: ClientDesk; followNotices?: FollowNotices; clock?: Clock }) {
    const clock = o.clock ?? systemClock;
    const { fleet } = o.desk;
    if (o.followNotices) this.lifetime.add(o.followNotices((e) => this.fromNotifier(e)));
    const exits = this.lifetime.add(new DisposableMap<string, Disposable>());
    const follow = (row: Row) => exits.set(row.name, row.onExit((e) => this.alert({ kind: 'exited', row: row.name, text: `@${row.name} exited${e.signal ? ` on signal ${e.signal}` : ` with status ${e.exitCode}`}`, at: clock.now() })));
    for (const row of fleet.list()) follow(row);
    this.lifetime.add(fleet.onAdded(follow));
    this.lifetime.add(fleet.onRemoved(({ row }) => exits.delete(row.name)));
  }

  private fromNotifier(e: NotifyEvent): void {
    const row = sayLine(e.row, 64);
    if (e.kind === 'waiting') this.alert({ kind: 'waiting', row: e.row, text: `@${row} is waiting for you (${e.reason})`, at: e.at });
    else if (e.kind === 'mail') this.alert({ kind: 'mail', row: e.row, text: `@${row} → you: ${sayLine((e.body ?? '').split(/\r\n|\r|\n/, 1)[0] ?? '', 200)}`, at: e.at });
    else if (e.kind === 'wake-held') this.alert({ kind: 'wake-held', row: e.row, text: `@${row}: a wake is held (${e.reason})`, at: e.at });
    // turn-ended is not among the page's alerts; row-exited comes from every exit below.
  }

  private alert(a: PageAlert): void {
    if (this.o.desk.mutes?.muted(a.row)) return;
    this.alerted.fire(a);
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}
