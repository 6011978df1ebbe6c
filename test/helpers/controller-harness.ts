// A DashboardController wired to a real hub (temp SWB_HOME), a real row manager and an app store,
// without a terminal: for tests of what the controller does with rows, mail and agents.
import { initialState } from '../../src/app/app-state.js';
import { AppStore } from '../../src/app/app-store.js';
import { fleetDesk } from '../../src/app/client-desk.js';
import { DashboardController, type ControllerOptions } from '../../src/app/dashboard-controller.js';
import { LayoutSource } from '../../src/app/layout-source.js';
import type { Hub } from '../../src/hub/hub.js';
import { operatorPort, type OperatorPort } from '../../src/hub/operator-port.js';
import { RowManager } from '../../src/rows/row-manager.js';
import type { AgentSupervisor } from '../../src/supervisor/agent-supervisor.js';
import { RowFleet, type RowFleetOptions } from '../../src/supervisor/row-fleet.js';
import { deferCleanup } from './cleanup.js';
import { startTestHub } from './hub-harness.js';

type Extra = Partial<Omit<ControllerOptions, 'desk'>> & { agents?: AgentSupervisor; configuredWakePolicy?: RowFleetOptions['configuredWakePolicy']; auditLogPath?: string };

/** `extra` adds options that need the hub (e.g. an agent supervisor reading its mail through the port). */
export async function startTestController(extraOf: (hub: Hub, port: OperatorPort) => Extra = () => ({})) {
  const { hub, paths } = await startTestHub();
  const port = operatorPort(hub.core);
  const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 0);
  const rows = new RowManager({
    socketPath: paths.socketPath,
    mintToken: (name) => {
      const r = port.registerRow(name);
      if (!r.ok) throw new Error(r.error.message);
      return r.token;
    },
  });
  const { agents, configuredWakePolicy, auditLogPath, ...extra } = extraOf(hub, port);
  const fleet = new RowFleet({ rows, port, ...(agents ? { agents } : {}), ...(configuredWakePolicy ? { configuredWakePolicy } : {}) });
  const controller = new DashboardController({
    store,
    desk: fleetDesk(fleet, auditLogPath ? { auditLogPath } : {}),
    port,
    themeNames: ['dark'],
    // No terminal: no row is placed, so none is resized.
    layouts: new LayoutSource(2, () => ({ rows: [], hidden: [], chrome: { x: 0, y: 22, width: 80, height: 2 } })),
    onQuit: () => undefined,
    onAttach: () => undefined,
    ...extra,
  });
  deferCleanup('dashboard controller', () => {
    controller.dispose();
    fleet.dispose();
    rows.dispose();
    store.dispose();
  });
  return { hub, port, paths, store, rows, fleet, controller };
}
