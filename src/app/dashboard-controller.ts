// The seam between the world below (the server's rows through the ClientDesk, mail through the
// OperatorPort) and one client's UI: it owns the client's parts — the row mirror, the size policy,
// the notes, the composer, the mail view, the row flows, the mouse — and carries out the UI's
// intents with them (keys through the action table). Nothing here draws.
import type { ActionName } from '../config/keymap.js';
import type { OperatorPort } from '../hub/operator-port.js';
import type { Row } from '../rows/row.js';
import type { Clock } from '../util/clock.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { runAction, type ActionContext } from './action-table.js';
import type { AppStore } from './app-store.js';
import type { ClientDesk } from './client-desk.js';
import { ComposerController } from './composer-controller.js';
import { DashboardMouse } from './dashboard-mouse.js';
import type { Intents } from './intents.js';
import type { LayoutSource } from './layout-source.js';
import { MailNotices } from './mail-notices.js';
import { MailViewController } from './mail-view-controller.js';
import { NoteStrip } from './note-strip.js';
import { PasteController, pasteTargetIn } from './paste-controller.js';
import { RowFlows } from './row-flows.js';
import { RowMirror } from './row-mirror.js';
import { SizePolicy } from './size-policy.js';

export interface ControllerOptions {
  store: AppStore;
  /** What this client asks of the server beyond mail: the rows, and starting, closing, reviewing them. */
  desk: ClientDesk;
  /** The mail core, through the one operator port. */
  port: OperatorPort;
  themeNames: readonly string[];
  /** The client's one layout (the painter draws into the same rectangles). */
  layouts: LayoutSource;
  onQuit: () => void;
  /** The operator leaves this dashboard; the rows run on (absent: leaving is quitting). */
  onLeave?: () => void;
  onAttach: (row: Row) => void;
  /** Lines kept under an attached row for its status line (0: the row takes the whole terminal). */
  attachedStatusLines?: number;
  /** The attached row is left without the detach key (it exited): the input router must let go too. */
  onDetach?: () => void;
  /** How long a note stays on the strip (default 8 s for information, 60 s for mail and problems). */
  stripAgeMs?: { info: number; news: number };
  /** Close the composer once a message is accepted (default: it stays open). */
  composerCloseAfterSend?: boolean;
  /** The key shown when a row is closed, for reopening it (the keymap's reopen). */
  reopenKey?: string;
  /** The key shown in the held-pair notification for granting another budget (the keymap's grantBudget). */
  grantKey?: string;
  /** Keys for Ink as if typed (the mouse wheel over a scrolling overlay). */
  injectKeys?: (keys: string) => void;
  /** Copies text for the operator: to the terminal's clipboard (OSC 52) when allowed, else to a file. */
  copyText?: (text: string) => string;
  /** The key that pastes (for the words that say so); default "p". */
  pasteKey?: string;
  /** Times the strip's notes and the double click (default: the system clock). */
  clock?: Clock;
}

export class DashboardController implements Intents, Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly notes: NoteStrip;
  readonly composer: ComposerController;
  readonly mailView: MailViewController;
  readonly rows: RowFlows;
  private readonly paste: PasteController | null;
  private readonly actions: ActionContext;
  /** This client's part in the rows' sizes. */
  readonly sizes: SizePolicy;
  /** Clicks and the wheel on the dashboard. */
  readonly pointer: DashboardMouse;
  /** The server's rows as this client's store shows them. */
  readonly mirror: RowMirror;

  constructor(private readonly o: ControllerOptions) {
    const { port, store, desk } = o;
    const { fleet } = desk;
    const clock = o.clock ? { clock: o.clock } : {};
    this.notes = this.lifetime.add(new NoteStrip({ store, ...(o.stripAgeMs ? { stripAgeMs: o.stripAgeMs } : {}), ...clock }));
    const note = this.notes.note;
    this.composer = this.lifetime.add(new ComposerController({ store, port, note, ...(o.composerCloseAfterSend ? { closeAfterSend: true } : {}) }));
    this.mailView = new MailViewController({ store, port, composer: this.composer, note });
    const buffer = desk.pasteBuffer;
    const operatorTyped = (name: string) => fleet.agents?.agentOf(name)?.operatorTyped();
    this.paste = buffer ? this.lifetime.add(new PasteController({ store, buffer, target: pasteTargetIn(fleet.rows), operatorTyped, note, pasteKey: o.pasteKey ?? 'p' })) : null;
    const mailNotices = this.lifetime.add(new MailNotices({ port, isRow: (name) => fleet.has(name), note, mailView: this.mailView, ...(o.grantKey ? { grantKey: o.grantKey } : {}) }));
    this.lifetime.add(port.onReceipt((r) => store.receiptChanged(r)));
    this.lifetime.add(port.onPeer(() => this.composer.refreshPeers()));
    this.sizes = this.lifetime.add(new SizePolicy({ store, fleet, layouts: o.layouts, ...(o.attachedStatusLines !== undefined ? { attachedStatusLines: o.attachedStatusLines } : {}) }));
    this.rows = new RowFlows({ store, desk, port, note, composer: this.composer, ...(o.reopenKey ? { reopenKey: o.reopenKey } : {}) });
    const mirror = (this.mirror = this.lifetime.add(
      new RowMirror({
        store,
        desk,
        port,
        notes: this.notes,
        attachedGone: (exited) => {
          // Keys would go to a program that is gone (exited): the input router lets go too.
          if (exited) o.onDetach?.();
          this.detach();
        },
      }),
    ));
    this.actions = {
      store,
      layouts: o.layouts,
      note,
      composer: this.composer,
      mailView: this.mailView,
      paste: this.paste,
      flows: this.rows,
      mirror,
      mailNotices,
      themeNames: o.themeNames,
      auditLines: (n) => fleet.agents?.auditLines(n) ?? [],
      ...(desk.auditLogPath ? { auditLogPath: desk.auditLogPath } : {}),
      attach: (row) => this.attach(row),
      detach: () => this.detach(),
      leave: () => (o.onLeave ?? o.onQuit)(),
      quit: () => o.onQuit(),
    };
    this.pointer = new DashboardMouse({ store, layouts: o.layouts, action: (a) => this.action(a), ...(o.injectKeys ? { injectKeys: o.injectKeys } : {}), ...clock });
  }

  /** This client's terminal got input: its sizes decide the rows' sizes from now on. */
  inputArrived(): void {
    this.sizes.inputArrived();
  }

  // --- intents -------------------------------------------------------------------------------

  action(action: ActionName): void {
    const state = this.o.store.getState();
    runAction(this.actions, action, { state, focused: state.focused ? this.o.desk.fleet.get(state.focused) : undefined });
  }

  private attach(row: Row): void {
    this.o.store.attach(row.name);
    this.sizes.attached(row.name, true);
    this.sizes.apply(); // the whole terminal, less the status line under it
    this.o.onAttach(row);
  }

  detach(): void {
    const attached = this.o.store.getState().attached;
    this.o.store.detach();
    if (attached !== null) this.sizes.attached(attached, false);
    this.sizes.apply();
  }

  /** The history view's y: what is on its screen, copied. */
  copyFromHistory(text: string): void {
    const row = this.o.store.getState().history?.row ?? '';
    const n = text.split('\n').length;
    const buffered = this.paste?.keep(text);
    this.copiedFromHistory('copied', text, `${n} line${n === 1 ? '' : 's'} of @${row}`, buffered);
  }

  /** The history view's s: the whole history, to a file. */
  saveHistory(): void {
    const h = this.o.store.getState().history;
    if (h) this.copiedFromHistory('saved', h.lines.join('\n'), `the history of @${h.row}`);
  }

  /** Says where a copy went: in the history view at once, and in the notification list for later. */
  private copiedFromHistory(verb: 'copied' | 'saved', text: string, what: string, also?: string): void {
    const where = this.o.copyText?.(text);
    if (where === undefined) return;
    const said = `${verb} ${what} ${where}${also ? ` · ${also}` : ''}`;
    this.o.store.historyDone(said);
    this.notes.note('info', said, null);
  }

  closeOverlay(): void {
    const state = this.o.store.getState();
    if (state.overlay === 'mail') this.mailView.close();
    else if (state.overlay !== null) this.o.store.openOverlay(null);
    else this.o.store.dismissStrip();
  }

  clearNotes(): void {
    this.o.store.clearNotes();
  }

  /** Enter on a notification: its message in the mail view, else the row it is about. */
  jumpToNote(id: number): void {
    const { store } = this.o;
    const note = store.getState().notes.find((n) => n.id === id);
    store.openOverlay(null);
    if (!note) return;
    if (note.mailId !== undefined) {
      this.mailView.open(null);
      this.mailView.select(note.mailId);
      return;
    }
    if (note.row !== null && this.o.desk.fleet.has(note.row)) store.focus(note.row);
    else if (note.row !== null) this.notes.note('info', `@${note.row} is not a row here any more`, null);
  }

  confirmQuit(yes: boolean): void {
    if (yes) this.o.onQuit();
    else this.o.store.openOverlay(null);
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}
