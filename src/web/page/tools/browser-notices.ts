// Browser notifications while the page is open, opt-in: a button asks the browser's permission
// (Notification.requestPermission), and from then on the server's alerts — a row waiting for you,
// mail to the operator, a row that exits, a held wake — each become a notification. Clicking one
// shows its row. The choice is kept in this browser (localStorage) until the button turns it off.
import type { PageAlert } from '../../tool-protocol.js';
import { el } from './dom.js';
import type { ToolClient } from './tool-client.js';
import type { ToolsDisposable } from './tools-host.js';

const KEY = 'swb.notifications';
const TITLES: Record<PageAlert['kind'], string> = { waiting: 'waiting for you', mail: 'mail for you', exited: 'row exited', 'wake-held': 'wake held' };

export class BrowserNotices {
  readonly button: HTMLButtonElement;
  private on: boolean;
  private readonly subscription: ToolsDisposable;

  constructor(
    client: ToolClient,
    private readonly showRow: (name: string) => void,
  ) {
    this.on = supported() && Notification.permission === 'granted' && storedOn();
    this.button = el('button', { class: 'tools-button tools-notify-toggle', attrs: { type: 'button' }, on: { click: () => void this.toggle() } });
    this.label();
    this.subscription = client.on('alert', (a) => this.alert(a));
  }

  private async toggle(): Promise<void> {
    if (!supported()) return this.label('this browser has no notifications');
    if (this.on) {
      this.on = false;
      store(false);
      return this.label();
    }
    const permission = await Notification.requestPermission();
    this.on = permission === 'granted';
    store(this.on);
    this.label(permission === 'denied' ? 'notifications are blocked for this page (the browser’s site settings allow them again)' : undefined);
  }

  private label(why?: string): void {
    this.button.textContent = this.on ? 'notifications: on' : 'notifications: off';
    this.button.setAttribute('aria-pressed', String(this.on));
    this.button.title = why ?? (this.on ? 'a row waiting for you, mail for you and a row that exits are notified' : 'notify me while this page is open');
  }

  private alert(a: PageAlert): void {
    if (!this.on || !supported() || Notification.permission !== 'granted') return;
    const n = new Notification(`swb: ${TITLES[a.kind]}`, { body: a.text, tag: `${a.kind}:${a.row}` });
    n.onclick = () => {
      window.focus();
      this.showRow(a.row);
      n.close();
    };
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

function supported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

function storedOn(): boolean {
  try {
    return localStorage.getItem(KEY) === 'on';
  } catch {
    return false;
  }
}

function store(on: boolean): void {
  try {
    localStorage.setItem(KEY, on ? 'on' : 'off');
  } catch {
    // A browser that keeps nothing (private mode): the choice lasts this page.
  }
}
