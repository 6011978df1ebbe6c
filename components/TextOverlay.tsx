import { Box, Text } from 'ink';
import type { Theme } from '../src/config/theme.js';

export interface TextOverlayProps {
  title: string;
  /** Already sanitized lines. */
  lines: readonly string[];
  theme: Theme;
  width: number;
  height: number;
}

/** A full-screen panel of plain lines (explain, audit log, notifications). Esc closes. */
export function TextOverlay({ title, lines, theme, width, height }: TextOverlayProps) {
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text bold color={theme.help.fg}>
        {title} — Esc closes
      </Text>
      {lines.slice(-Math.max(0, height - 3)).map((line, i) => (
        <Text key={i} color={theme.help.fg} wrap="truncate">
          {line || ' '}
        </Text>
      ))}
    </Box>
  );
}
