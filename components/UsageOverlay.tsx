// The `$` overlay (issue #38): every agent row's usage in full — tokens in, cached and out, cost at list
// price, context fill, plan windows with their resets, budget, per-model split — the focused row first.
// Its text comes from the rows' usage in the app store (src/app/usage-lines.ts), so it follows each
// usage event while open. Esc closes.
import type { RowView } from '../src/app/app-state.js';
import { usageLines } from '../src/app/usage-lines.js';
import type { Theme } from '../src/config/theme.js';
import { TextOverlay } from './TextOverlay.js';

export interface UsageOverlayProps {
  rows: readonly RowView[];
  focused: string | null;
  now: number;
  theme: Theme;
  width: number;
  height: number;
}

export function UsageOverlay({ rows, focused, now, theme, width, height }: UsageOverlayProps) {
  // The focused row's lines come first: the panel keeps the top when there is not room for all.
  const lines = usageLines(rows, focused, now).slice(0, Math.max(0, height - 3));
  return <TextOverlay title="Usage (list prices)" lines={lines} theme={theme} width={width} height={height} />;
}
