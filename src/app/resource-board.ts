// The dashboard's view of reservations (issue #35), one per client: it hears every committed
// reservation event through the operator port (the same events `swb events --kinds resource`
// streams, fired once in the hub's ResourceService), reads the status again after each (reads
// coalesce: one in flight, one more if events came meanwhile), and hands it to the app store, which
// derives the rows' ⚿/⧗ header marks and the resources overlay from it. Nothing polls. The operator's
// grant, forced release and controller choice go through the port's reservation methods — the hub's
// own rules and transactions, as `swb resource` run by the operator — never to the store directly.
import type { OperatorPort, PortResult } from '../hub/operator-port.js';
import { OPERATOR } from '../protocol/handle.js';
import { sanitize } from '../text/sanitize.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import type { AppStore } from './app-store.js';
import type { ResourceIntents } from './intents.js';
import { moveSelection, selectedEntry } from './resources-view-state.js';

type ResourcePort = Pick<OperatorPort, 'resourceStatus' | 'grantTicket' | 'releaseTicket' | 'setController' | 'onResource'>;

export class ResourceBoard implements ResourceIntents, Disposable {
  private readonly lifetime = new DisposableStore();
  private reading = false;
  private again = false;

  constructor(
    private readonly port: ResourcePort,
    private readonly store: AppStore,
  ) {
    this.lifetime.add(port.onResource(() => this.refresh()));
    this.refresh();
  }

  /** Reads the status again (after an event, and once at the start). */
  private refresh(): void {
    if (this.lifetime.disposed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void this.port.resourceStatus().then((r) => {
      this.reading = false;
      if (this.lifetime.disposed) return;
      if ('ok' in r) this.store.setResourceStatuses(r.ok);
      else this.say('error', `reservations: ${r.error.message}`);
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    });
  }

  private say(kind: 'info' | 'error', text: string): void {
    const message = { kind, text: sanitize(text, { singleLine: true, maxChars: 300 }) };
    this.store.updateResourcesView((v) => ({ ...v, message }));
  }

  private answer<T>(pending: Promise<PortResult<T>>, done: (ok: T) => string): void {
    void pending.then((r) => {
      if (this.lifetime.disposed) return;
      if ('ok' in r) this.say('info', done(r.ok));
      else this.say('error', `${r.error.code}: ${r.error.message}`);
    });
  }

  moveResourceSelection(step: number): void {
    this.store.updateResourcesView((v) => ({ ...moveSelection(v, step), message: null }));
  }

  grantSelected(): void {
    const e = selectedEntry(this.store.getState().resources);
    if (!e || e.kind !== 'queued') return this.say('error', 'Select a queued ticket to grant it.');
    const ticket = e.ticket.ticket;
    this.answer(this.port.grantTicket(ticket), (t) => `ticket ${t.ticket} of @${t.holder}: ${t.state === 'queued' ? 'first in line (no room yet)' : t.state}`);
  }

  askReleaseSelected(): void {
    const e = selectedEntry(this.store.getState().resources);
    if (!e || e.kind !== 'holder') return this.say('error', 'Select a holder to release its ticket (a queued one: grant it, or let it wait).');
    const ticket = e.ticket;
    this.store.updateResourcesView((v) => ({ ...v, confirmRelease: ticket, pickController: null, message: null }));
  }

  answerRelease(yes: boolean): void {
    const asked = this.store.getState().resources.confirmRelease;
    if (!asked) return;
    this.store.updateResourcesView((v) => ({ ...v, confirmRelease: null }));
    if (yes) this.answer(this.port.releaseTicket(asked.ticket), (t) => `ticket ${t.ticket} of @${t.holder}: ${t.state}`);
  }

  askController(): void {
    const e = selectedEntry(this.store.getState().resources);
    if (!e) return;
    this.store.updateResourcesView((v) => ({ ...v, pickController: e.resource, confirmRelease: null, message: null }));
  }

  chooseController(controller: string | null | undefined): void {
    const resource = this.store.getState().resources.pickController;
    if (resource === null) return;
    this.store.updateResourcesView((v) => ({ ...v, pickController: null }));
    if (controller === undefined) return;
    const who = controller === null ? 'none: the hub grants in order' : controller === OPERATOR ? 'the operator (grants by hand)' : `@${controller}`;
    this.answer(this.port.setController(resource, controller), (s) => `${s.name}: controller ${who}, epoch ${s.epoch}`);
  }

  closeOverlay(): void {
    this.store.openOverlay(null);
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}
