// The page service: what the web listener hands each authenticated page socket to. A page is one
// more client of the workspace server, through the seams a terminal client uses: row headers from
// the same mirror (page-row-headers.ts), each viewed row through its one-way render handle
// (page-row-stream.ts), keys into the attached row, and the rows' sizes decided by the fleet's rule
// (the client whose keys came last; RowFleet.setAttached/claimSizes/decidesSize). Tool requests go
// to PageTools. A read-only identity is refused attaching, typing and resizing here, at the server,
// and every mutating tool before it runs — hiding the buttons in the page is a courtesy, not the rule.
import type { ClientDesk } from '../app/client-desk.js';
import type { OperatorPort } from '../hub/operator-port.js';
import type { Row } from '../rows/row.js';
import { DisposableMap } from '../util/disposable-map.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import { parsePageFrame } from './page-frames.js';
import { PAGE_PROTOCOL_VERSION, type PageToServer, type ServerToPage } from './page-protocol.js';
import { PageRowHeaders } from './page-row-headers.js';
import { PageRowStream, type RowStreamSink } from './page-row-stream.js';
import type { PageService, PageSocket, PageTools, WebIdentity } from './web-contract.js';

/** One frame: the page's rows' output is gathered this long and sent together. */
export const FRAME_MS = 16;
/** Bytes queued on the page's socket above which a frame's output waits (rows' own buffers stay bounded). */
export const SOCKET_SOFT_MAX = 512 * 1024;
/** Tool requests one page may have running at once. */
export const MAX_REQUESTS_IN_FLIGHT = 16;

export interface PageSessionsOptions {
  desk: ClientDesk;
  port: OperatorPort;
  tools: PageTools;
  workspace: string;
  serverVersion: string;
}

export class PageSessions implements PageService {
  constructor(private readonly o: PageSessionsOptions) {}

  open(socket: PageSocket, who: WebIdentity): Disposable {
    const session = new PageSession(this.o, socket, who);
    return toDisposable(() => session.dispose());
  }
}

class PageSession implements Disposable, RowStreamSink {
  private readonly lifetime = new DisposableStore();
  private readonly streams = this.lifetime.add(new DisposableMap<string, PageRowStream>());
  private readonly frameSlot = this.lifetime.add(new TimerSlot());
  private attached: { name: string; handle: Disposable } | null = null;
  /** The size this page shows each row it sized (the attached row's, its tile's). */
  private readonly sizes = new Map<string, { cols: number; rows: number }>();
  private inFlight = 0;
  private closed = false;

  constructor(
    private readonly o: PageSessionsOptions,
    private readonly socket: PageSocket,
    private readonly who: WebIdentity,
  ) {
    socket.send({ t: 'hello', version: PAGE_PROTOCOL_VERSION, workspace: o.workspace, readOnly: who.readOnly, serverVersion: o.serverVersion });
    this.lifetime.add(new PageRowHeaders(o.desk, o.port, (m) => this.send(m)));
    this.lifetime.add(o.tools.follow((m) => this.send(m), who));
    this.lifetime.add(socket.onMessage((value) => this.receive(value)));
    this.lifetime.add(socket.onClose(() => this.dispose()));
    const { fleet } = o.desk;
    this.lifetime.add(fleet.onSizeOwner(() => this.applySizes()));
    // A row that goes away takes its stream (and this page's attachment) with it.
    this.lifetime.add(
      fleet.onRemoved(({ row }) => {
        this.streams.delete(row.name);
        if (this.attached?.name === row.name) this.detach();
      }),
    );
    this.lifetime.add(toDisposable(() => this.detach()));
    this.lifetime.add(toDisposable(() => fleet.sizeOwner === this && fleet.claimSizes(null)));
  }

  send(message: ServerToPage): boolean {
    return !this.closed && this.socket.send(message);
  }

  congested(): boolean {
    return this.socket.bufferedBytes > SOCKET_SOFT_MAX;
  }

  requestFrame(now = false): void {
    if (this.closed) return;
    if (now) {
      // The attached row's echo: later this turn (the pty's other reads first), not a frame later.
      if (!this.frameThisTurn) {
        this.frameThisTurn = true;
        setImmediate(this.frame);
      }
      return;
    }
    this.frameSlot.setIfIdle(this.frame, FRAME_MS);
  }

  now(): number {
    return Date.now();
  }

  private frameThisTurn = false;

  private readonly frame = (): void => {
    this.frameThisTurn = false;
    for (const stream of this.streams.values()) stream.frame();
  };

  private receive(value: unknown): void {
    const parsed = parsePageFrame(value);
    if (!parsed.ok) {
      const t = typeof value === 'object' && value !== null && typeof (value as { t?: unknown }).t === 'string' ? String((value as { t: string }).t).slice(0, 16) : '?';
      this.send({ t: 'refused', frame: t, code: 'BAD_FRAME', message: parsed.problem.slice(0, 300) });
      return;
    }
    const frame = parsed.frame;
    switch (frame.t) {
      case 'view':
        return this.view(frame.rows);
      case 'attach':
        return this.attach(frame);
      case 'input':
        return this.input(frame.name, frame.data);
      case 'resize':
        return this.resize(frame.name, frame.cols, frame.rows);
      case 'req':
        return void this.request(frame.id, frame.method, frame.params);
    }
  }

  /** The rows the page shows now: streams start for new ones and end for the rest. */
  private view(names: readonly string[]): void {
    const wanted = new Set(names);
    for (const name of [...this.streams.keys()]) if (!wanted.has(name)) this.streams.delete(name);
    for (const name of wanted) {
      if (this.streams.has(name)) continue;
      const row = this.o.desk.fleet.get(name);
      if (row && !row.disposed) this.streams.set(name, new PageRowStream(row, this)).urgent = this.attached?.name === name;
    }
  }

  private refuse(frame: PageToServer['t'], code: string, message: string): void {
    this.send({ t: 'refused', frame, code, message });
  }

  private attach(frame: Extract<PageToServer, { t: 'attach' }>): void {
    if (frame.name === null) return this.detach();
    if (this.who.readOnly) return this.refuse('attach', 'READ_ONLY', 'this page is read-only: it views rows but cannot attach to or type into one');
    const row = this.o.desk.fleet.get(frame.name);
    if (!row || row.disposed) return this.refuse('attach', 'NO_SUCH_ROW', `no row named ${frame.name}`);
    if (this.attached?.name !== row.name) {
      this.detach();
      // Attached: the row parses its output as it comes (urgent), as for a terminal client attached to it.
      this.attached = { name: row.name, handle: row.attach(() => undefined) };
      const stream = this.streams.get(row.name);
      if (stream) stream.urgent = true;
      this.o.desk.fleet.setAttached(row.name, this, true);
    }
    if (frame.cols !== undefined && frame.rows !== undefined) this.sizes.set(row.name, { cols: frame.cols, rows: frame.rows });
    this.applySizes();
  }

  private detach(): void {
    const was = this.attached;
    if (!was) return;
    this.attached = null;
    was.handle.dispose();
    const stream = this.streams.get(was.name);
    if (stream) stream.urgent = false;
    this.sizes.delete(was.name);
    this.o.desk.fleet.setAttached(was.name, this, false);
  }

  private input(name: string, data: string): void {
    if (this.who.readOnly) return this.refuse('input', 'READ_ONLY', 'this page is read-only: its keys reach no row');
    const row = this.attached?.name === name ? this.o.desk.fleet.get(name) : undefined;
    if (!row) return this.refuse('input', 'NOT_ATTACHED', `attach to ${name} before typing into it`);
    row.write(data);
    // This page's keys came last: its sizes count from now (the fleet's rule for every client).
    this.o.desk.fleet.claimSizes(this, name);
  }

  private resize(name: string, cols: number, rows: number): void {
    if (this.who.readOnly) return this.refuse('resize', 'READ_ONLY', 'this page is read-only: it sizes no row');
    this.sizes.set(name, { cols, rows });
    this.applySizes();
  }

  /** Gives the rows this page decides the size of (RowFleet.decidesSize) the size it shows them at. */
  private applySizes(): void {
    if (this.closed) return;
    const { fleet } = this.o.desk;
    for (const [name, size] of this.sizes) {
      const row: Row | undefined = fleet.get(name);
      if (row && fleet.decidesSize(name, this)) row.resize(size.cols, size.rows);
    }
  }

  private async request(id: number, method: string, params: unknown): Promise<void> {
    const { tools } = this.o;
    if (this.who.readOnly && tools.mutates(method)) {
      this.send({ t: 'res', id, error: { code: 'READ_ONLY', message: `this page is read-only: ${method.slice(0, 64)} changes something` } });
      return;
    }
    if (this.inFlight >= MAX_REQUESTS_IN_FLIGHT) {
      this.send({ t: 'res', id, error: { code: 'BUSY', message: `at most ${MAX_REQUESTS_IN_FLIGHT} requests at once; wait for an answer` } });
      return;
    }
    this.inFlight++;
    try {
      const answer = await tools.handle(method, params, this.who);
      this.send('ok' in answer ? { t: 'res', id, ok: answer.ok } : { t: 'res', id, error: answer.error });
    } catch (err) {
      this.send({ t: 'res', id, error: { code: 'INTERNAL', message: String((err as Error)?.message ?? err).slice(0, 300) } });
    } finally {
      this.inFlight--;
    }
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.lifetime.dispose();
  }
}
