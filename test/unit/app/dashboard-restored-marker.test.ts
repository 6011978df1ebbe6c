// Two dashboards on one server show a restored row's marker from the same truth (the fleet's origin),
// before and after a restart; the note about how the row came back is news only to a client that was
// there when it happened.
import { afterEach, describe, expect, it } from 'vitest';
import { initialState } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';
import { fleetDesk } from '../../../src/app/client-desk.js';
import { DashboardController } from '../../../src/app/dashboard-controller.js';
import { LayoutSource } from '../../../src/app/layout-source.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { startTestController } from '../../helpers/controller-harness.js';

afterEach(runCleanups);

const NOTE = '@a restored after the server stopped: resuming its conversation';

async function withRestoredRow(noteAgeMs: number) {
  const t = await startTestController();
  t.fleet.add({ name: 'a', command: 'sleep 60' }, { cols: 40, rows: 5 }, { origin: { kind: 'restored', after: 'stop', resumed: true, note: NOTE, noteAt: Date.now() - noteAgeMs } });
  /** A dashboard that comes later, on the same server. */
  const later = () => {
    const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 0);
    const controller = new DashboardController({
      store,
      desk: fleetDesk(t.fleet),
      port: t.port,
      themeNames: ['dark'],
      layouts: new LayoutSource(2, () => ({ rows: [], hidden: [], chrome: { x: 0, y: 22, width: 80, height: 2 } })),
      onQuit: () => undefined,
      onAttach: () => undefined,
    });
    return { store, controller };
  };
  return { t, later };
}

const marker = (store: AppStore) => store.getState().rows.find((r) => r.name === 'a')?.restored;

describe('a restored row on several dashboards', () => {
  it('after a restart, the dashboard that was there and one that comes later both show no restored marker', async () => {
    const { t, later } = await withRestoredRow(0);
    expect(marker(t.store)).toBe('resumed');
    t.fleet.restart('a');
    const second = later();
    expect(marker(second.store)).toBeNull();
    expect(marker(t.store)).toBeNull();
    second.controller.dispose();
  });

  it('a minutes-old restore note is listed for a later dashboard with its own time, not shown as news', async () => {
    const { t, later } = await withRestoredRow(5 * 60_000);
    const second = later();
    expect(marker(second.store)).toBe('resumed');
    const state = second.store.getState();
    expect(state.strip).toBeNull();
    expect(state.unseen).toBe(0);
    const listed = state.notes.find((n) => n.text === NOTE);
    expect(listed?.at).toBeLessThan(Date.now() - 4 * 60_000);
    expect(t.store.getState().notes.some((n) => n.text === NOTE)).toBe(true);
    second.controller.dispose();
  });

  it('a fresh restore note is news to the dashboard that is there', async () => {
    const { t } = await withRestoredRow(0);
    expect(t.store.getState().strip?.text).toBe(NOTE);
  });
});
