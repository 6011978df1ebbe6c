// The shell's side of the tools: the panel they draw into, and the host they are given
// (tools/tools-host.ts) — requests (`req`, answered by the `res` with the same id), the pushes they
// follow, the rows, the focused row. The tools themselves (tools/mount-tools.ts) are web-tools'.
import type { PageRow, ServerToPage } from '../page-protocol.js';
import type { Connection } from './connection.js';
import type { RowsModel } from './rows-model.js';
import { mountTools } from './tools/mount-tools.js';
import type { ToolsHost } from './tools/tools-host.js';

/** A request not answered in this long fails (the server answers every one; a dropped socket does not). */
const REQUEST_TIMEOUT_MS = 30_000;

export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class ToolsPanel {
  readonly element: HTMLElement;
  private readonly panel: HTMLElement;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  private readonly pushListeners = new Map<string, Set<(data: unknown) => void>>();
  private mounted = false;
  focusSource: { focused(): string | null; focus(name: string): void } = { focused: () => null, focus: () => undefined };

  constructor(
    private readonly connection: Connection,
    private readonly model: RowsModel,
    private readonly readOnly: () => boolean,
  ) {
    this.element = document.createElement('aside');
    this.element.id = 'tools';
    this.element.hidden = true;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'close-tools';
    close.textContent = '×';
    close.setAttribute('aria-label', 'Close the tools');
    close.addEventListener('click', () => this.show(false));
    this.panel = document.createElement('div');
    this.panel.className = 'tools-panel';
    this.element.append(close, this.panel);
    // Tools follow pushes from the start (notifications while the panel is closed).
    queueMicrotask(() => this.mount());
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  show(open: boolean): void {
    this.element.hidden = !open;
    document.body.classList.toggle('tools-open', open);
  }

  receive(message: Extract<ServerToPage, { t: 'res' } | { t: 'push' }>): void {
    if (message.t === 'push') {
      this.pushListeners.get(message.topic)?.forEach((fn) => fn(message.data));
      return;
    }
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error) waiting.reject(new ToolError(message.error.code, message.error.message));
    else waiting.resolve(message.ok);
  }

  private mount(): void {
    if (this.mounted) return;
    this.mounted = true;
    const host: ToolsHost = {
      request: (method, params) => this.request(method, params),
      onPush: (topic, fn) => {
        let set = this.pushListeners.get(topic);
        if (!set) this.pushListeners.set(topic, (set = new Set()));
        set.add(fn);
        return { dispose: () => set!.delete(fn) };
      },
      panel: this.panel,
      rows: (): readonly PageRow[] => this.model.rows,
      onRows: (fn) => ({ dispose: this.model.onRows(fn) as () => void }),
      focusedRow: () => this.focusSource.focused(),
      focusRow: (name) => this.focusSource.focus(name),
      showPanel: (open) => this.show(open),
      get readOnly() {
        return readOnlyNow();
      },
    };
    const readOnlyNow = this.readOnly;
    mountTools(host);
  }

  private request(method: string, params?: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.connection.send({ t: 'req', id, method, ...(params === undefined ? {} : { params }) })) {
        reject(new ToolError('OFFLINE', 'the page is not connected to its server'));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ToolError('TIMEOUT', `${method} had no answer in ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
    });
  }
}
