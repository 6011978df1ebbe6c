// What every component can reach: the store (through hooks), intents, the theme and the keymap.
import { createContext, useContext } from 'react';
import type { Keymap } from '../config/keymap.js';
import type { Theme } from '../config/theme.js';
import type { AppStore } from './app-store.js';
import type { Intents, ResourceIntents } from './intents.js';
import type { LayoutSource } from './layout-source.js';

export interface AppServices {
  store: AppStore;
  intents: Intents;
  /** The resources overlay's intents (absent: no hub reservations behind this dashboard). */
  resources?: ResourceIntents;
  themes: ReadonlyMap<string, Theme>;
  keymap: Keymap;
  /** Lines at the bottom reserved for the chrome (strip and key hints). */
  chromeHeight: number;
  /** The client's one layout (the painter draws the rows into the same rectangles). */
  layouts: LayoutSource;
  /** The agent profiles a new row may name (the "new row" dialog). */
  profileIds?: readonly string[];
  /** Where a new row starts unless told (the client's directory). */
  cwd?: string;
}

export const AppContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const services = useContext(AppContext);
  if (!services) throw new Error('AppContext missing');
  return services;
}
