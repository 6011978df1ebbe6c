// A row's emulated screen as the escape sequences that redraw it, for a client that keeps its own
// emulator (the browser's xterm.js): @xterm/addon-serialize, loaded on a terminal the first time it
// is asked for and kept with it, so a row nobody views in a browser never carries the addon.
import type { Terminal } from '@xterm/headless';
import serializeModule from '@xterm/addon-serialize';
const { SerializeAddon } = serializeModule;

const addons = new WeakMap<Terminal, InstanceType<typeof SerializeAddon>>();

/** The terminal's screen, modes and cursor, and up to `historyLines` of its scrollback (the emulator's, as cells). */
export function serializeTerminal(terminal: Terminal, historyLines?: number): string {
  let addon = addons.get(terminal);
  if (!addon) {
    addon = new SerializeAddon();
    // (The addon's typings name the browser Terminal; the headless one has the same buffer API.)
    terminal.loadAddon(addon as unknown as Parameters<Terminal['loadAddon']>[0]);
    addons.set(terminal, addon);
  }
  return addon.serialize(historyLines === undefined ? undefined : { scrollback: historyLines });
}
