import type { Theme } from '../config/theme.js';
import { useServices } from './app-context.js';
import { useAppState } from './use-app-state.js';

export function useTheme(): Theme {
  const { themes } = useServices();
  const name = useAppState((s) => s.themeName);
  return themes.get(name) ?? themes.values().next().value!;
}
