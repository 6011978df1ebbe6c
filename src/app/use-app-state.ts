import { useSyncExternalStore } from 'react';
import type { AppState } from './app-state.js';
import { useServices } from './app-context.js';

/** The current app state snapshot, with an optional selector (re-renders when its result changes). */
export function useAppState<T = AppState>(select: (s: AppState) => T = (s) => s as unknown as T): T {
  const { store } = useServices();
  return useSyncExternalStore(store.subscribe, () => select(store.getState()));
}
