// The set of rows of one swb: creates them from specs, hands each incarnation a fresh token
// (minted by the caller — the hub owns tokens), and ends every child on close/dispose.
import { HANDLE_HINT, OPERATOR, RESERVED_HANDLES, isValidHandle } from '../protocol/handle.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { Row, type RowOptions, type RowSpec } from './row.js';

export interface RowManagerOptions
  extends Omit<RowOptions, 'spec' | 'cols' | 'rows'> {
  /** Size for rows created without one (the dashboard resizes them to their viewport). */
  cols?: number;
  rows?: number;
}

export class RowManager implements Disposable {
  private readonly store = new DisposableStore();
  private readonly rows = new Map<string, Row>();
  private readonly addedEmitter = this.store.add(new Emitter<Row>());
  private readonly removedEmitter = this.store.add(new Emitter<Row>());

  readonly onRowAdded: Event<Row> = this.addedEmitter.event;
  /** A row was closed (its processes have been signalled and its resources released). */
  readonly onRowRemoved: Event<Row> = this.removedEmitter.event;

  constructor(private readonly options: RowManagerOptions) {}

  /** Starts a row. Throws on an invalid or already used name. */
  create(spec: RowSpec, size?: { cols: number; rows: number }): Row {
    if (this.store.disposed) throw new Error('the row manager is closed');
    // Row names are session handles (DESIGN §3); src/config makes them unique, this is a guard.
    if (!isValidHandle(spec.name)) throw new Error(`invalid row name ${JSON.stringify(spec.name)}: ${HANDLE_HINT}`);
    if (spec.name === OPERATOR || RESERVED_HANDLES.has(spec.name)) {
      throw new Error(`invalid row name ${JSON.stringify(spec.name)}: the name is reserved`);
    }
    if (this.rows.has(spec.name)) throw new Error(`a row named ${spec.name} already exists`);
    const row = new Row({
      ...this.options,
      spec,
      cols: size?.cols ?? this.options.cols ?? 80,
      rows: size?.rows ?? this.options.rows ?? 24,
    });
    this.rows.set(spec.name, row);
    this.addedEmitter.fire(row);
    return row;
  }

  get(name: string): Row | undefined {
    return this.rows.get(name);
  }

  has(name: string): boolean {
    return this.rows.has(name);
  }

  /** Rows in creation order. */
  list(): Row[] {
    return [...this.rows.values()];
  }

  get size(): number {
    return this.rows.size;
  }

  /** Ends a row's processes and forgets it. Returns false if there was no such row. */
  close(name: string): boolean {
    const row = this.rows.get(name);
    if (row === undefined) return false;
    this.rows.delete(name);
    row.dispose();
    this.removedEmitter.fire(row);
    return true;
  }

  /** Restarts a row (new process, fresh screen, new token). */
  restart(name: string): Row {
    const row = this.rows.get(name);
    if (row === undefined) throw new Error(`no row named ${name}`);
    row.restart();
    return row;
  }

  /** Ends every row's processes and releases everything. */
  readonly dispose = (): void => {
    if (this.store.disposed) return;
    const errors: unknown[] = [];
    for (const row of this.rows.values()) {
      try {
        row.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    this.rows.clear();
    this.store.dispose();
    if (errors.length > 0) throw new AggregateError(errors, 'some rows failed to close');
  };
}
