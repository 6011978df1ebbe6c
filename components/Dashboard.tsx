import { Box, Text } from 'ink';
import React from 'react';
import type { AppState } from '../src/app/app-state.js';
import type { Layout } from '../src/app/layout.js';
import type { Theme } from '../src/config/theme.js';
import { RowHeader } from './RowHeader.js';

export interface DashboardProps {
  state: AppState;
  layout: Layout;
  theme: Theme;
  height: number;
}

/**
 * The dashboard's chrome, line by line: row headers and grid separators. Viewport areas are left
 * blank here; the compositor paints each row's live screen into them.
 */
export function Dashboard({ state, layout, theme, height }: DashboardProps) {
  const byName = new Map(state.rows.map((r) => [r.name, r]));
  const lines: React.ReactNode[] = [];
  for (let y = 0; y < height; y++) {
    const segments = layout.rows
      .filter((p) => (p.header.y === y) || (p.viewport.height > 0 && y >= p.viewport.y && y < p.viewport.y + p.viewport.height))
      .sort((a, b) => a.header.x - b.header.x);
    let x = 0;
    const parts: React.ReactNode[] = [];
    for (const p of segments) {
      if (p.header.x > x) {
        // A grid separator (or gap) before this segment.
        parts.push(
          <Text key={`gap-${p.name}`} color={theme.border.unfocused}>
            {p.header.x - x === 1 ? '│' : ' '.repeat(p.header.x - x)}
          </Text>,
        );
      }
      const row = byName.get(p.name);
      if (p.header.y === y && row) {
        parts.push(
          <Box key={p.name} width={p.header.width}>
            <RowHeader row={row} width={p.header.width} focused={state.focused === p.name} now={state.now} theme={theme} />
          </Box>,
        );
      } else {
        parts.push(<Box key={p.name} width={p.viewport.width} />);
      }
      x = p.header.x + p.header.width;
    }
    lines.push(
      <Box key={y} height={1} width={state.size.cols}>
        {parts.length > 0 ? parts : <Text> </Text>}
      </Box>,
    );
  }
  return (
    <Box flexDirection="column" height={height} width={state.size.cols}>
      {lines}
    </Box>
  );
}
