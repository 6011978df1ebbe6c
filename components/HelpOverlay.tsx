import { Box, Text } from 'ink';
import { describeBindings, type Keymap } from '../src/config/keymap.js';
import type { Theme } from '../src/config/theme.js';

export interface HelpOverlayProps {
  keymap: Keymap;
  theme: Theme;
  width: number;
  height: number;
}

/** Every action with its current (possibly remapped) keys. */
export function HelpOverlay({ keymap, theme, width, height }: HelpOverlayProps) {
  const rows = describeBindings(keymap);
  const keyWidth = Math.max(...rows.map((r) => r.keys.join(', ').length), 4) + 2;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text color={theme.help.fg} bold>
        Switchboard keys — Esc or ? closes
      </Text>
      {rows.slice(0, Math.max(0, height - 3)).map((r) => (
        <Text key={r.action} wrap="truncate">
          <Text color={theme.help.key}>{r.keys.join(', ').padEnd(keyWidth)}</Text>
          <Text color={theme.help.fg}>{r.description}</Text>
        </Text>
      ))}
    </Box>
  );
}
