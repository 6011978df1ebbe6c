// What the UI may ask for. Components call these; the controller carries them out against rows,
// the hub and the store, and the results come back as new app state.
import type { ActionName } from '../config/keymap.js';

export interface Intents {
  /** A keymap action pressed on the dashboard. */
  action(action: ActionName): void;
  closeOverlay(): void;
  confirmQuit(yes: boolean): void;
}
