// Long-polls (`mail.wait`): a waiter parks until mail for its handle commits or its deadline
// passes. Waiters die with their connection and with the hub.
import { systemClock, type Clock } from '../util/clock.js';
import type { Disposable } from '../util/lifecycle.js';

interface Waiter<Conn> {
  conn: Conn;
  check: () => boolean;
  timer: Disposable;
  done: () => void;
}

export class MailWaiters implements Disposable {
  private byHandle = new Map<string, Set<Waiter<unknown>>>();

  constructor(private readonly clock: Clock = systemClock) {}

  /**
   * Parks until `check()` is true after new mail for `handle`, or `timeoutMs` passes.
   * Resolves true if mail ended the wait, false on timeout or cancellation.
   */
  wait(handle: string, conn: unknown, timeoutMs: number, check: () => boolean): Promise<boolean> {
    return new Promise((resolve) => {
      let set = this.byHandle.get(handle);
      if (!set) this.byHandle.set(handle, (set = new Set()));
      const waiter: Waiter<unknown> = {
        conn,
        check,
        timer: this.clock.setTimer(() => finish(false), timeoutMs),
        done: () => finish(false),
      };
      const finish = (gotMail: boolean) => {
        waiter.timer.dispose();
        if (!set!.delete(waiter)) return;
        if (set!.size === 0) this.byHandle.delete(handle);
        resolve(gotMail);
      };
      waiter.check = () => {
        if (!check()) return false;
        finish(true);
        return true;
      };
      set.add(waiter);
    });
  }

  notify(handle: string): void {
    const set = this.byHandle.get(handle);
    if (!set) return;
    for (const w of [...set]) w.check();
  }

  cancelConnection(conn: unknown): void {
    for (const set of [...this.byHandle.values()]) for (const w of [...set]) if (w.conn === conn) w.done();
  }

  dispose(): void {
    for (const set of [...this.byHandle.values()]) for (const w of [...set]) w.done();
  }
}
