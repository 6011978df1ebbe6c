// The terminal channel's audience: every attached client's terminal, each with the notification
// sequence its terminal takes (OSC 9, 777, 99 or the bell), chosen when it attaches from the
// policy's `terminal` setting and what the client reported about its terminal (HELLO), and chosen
// again if the terminal names itself later (its XTVERSION answer comes after attaching, issue #33). A notice is
// rendered once per kind and written to each terminal between frames: the compositor writes a frame
// in one call inside synchronized output, so a write from here can never land inside one.
import type { TerminalNotifySetting, TerminalNotifyKind } from '../config/notify-settings.js';
import { terminalKindFor, type TerminalReport } from '../notify/terminal-detect.js';
import { terminalNotificationBytes, type TerminalNotice } from '../notify/terminal-sequences.js';
import { toDisposable, type Disposable } from '../util/lifecycle.js';

interface Listener {
  kind: TerminalNotifyKind;
  write: (bytes: string) => void;
}

/** One client's terminal on the channel. */
export interface NotifyTerminal extends Disposable {
  /** The terminal told more about itself: its sequence is chosen again from `report`. */
  retarget(report: TerminalReport): void;
}

export class NotifyTerminals {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly setting: TerminalNotifySetting) {}

  /** A client's terminal takes notifications until the returned handle is disposed (none with terminal "off"). */
  add(report: TerminalReport, write: (bytes: string) => void): NotifyTerminal {
    const kind = terminalKindFor(this.setting, report);
    if (kind === null) return { ...toDisposable(() => undefined), retarget: () => undefined };
    const listener = { kind, write };
    this.listeners.add(listener);
    return {
      ...toDisposable(() => this.listeners.delete(listener)),
      retarget: (next) => {
        listener.kind = terminalKindFor(this.setting, next) ?? listener.kind;
      },
    };
  }

  get count(): number {
    return this.listeners.size;
  }

  /**
   * Writes `notice` to every terminal, in its kind. One writer that throws (a client gone mid-write)
   * does not keep it from the others; the first failure is thrown after, for the notifier to log.
   */
  write(notice: TerminalNotice): void {
    const bytes = new Map<TerminalNotifyKind, string>();
    let failed: unknown = null;
    for (const { kind, write } of this.listeners) {
      let b = bytes.get(kind);
      if (b === undefined) bytes.set(kind, (b = terminalNotificationBytes(kind, notice)));
      try {
        write(b);
      } catch (err) {
        failed ??= err;
      }
    }
    if (failed !== null) throw failed;
  }
}
