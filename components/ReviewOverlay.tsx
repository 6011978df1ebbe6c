// A worktree row's changes since its base (D): per-file stats, then the diff, coloured; scroll with
// ↑↓ PgUp PgDn Home End, c writes to the row about it (the composer, addressed to the row), m merges
// nothing by itself — merging stays an explicit `swb merge` — Esc closes.
import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import { clampOffset } from '../src/app/scroll-window.js';
import type { Theme } from '../src/config/theme.js';

export interface ReviewOverlayProps {
  title: string;
  /** Ready to paint: sanitized, coloured by swb. */
  lines: readonly string[];
  theme: Theme;
  width: number;
  height: number;
  onClose: () => void;
  /** Write to the row about what the review shows. */
  onCompose: () => void;
}

export function ReviewOverlay({ title, lines, theme, width, height, onClose, onCompose }: ReviewOverlayProps) {
  const [offset, setOffset] = useState(0);
  // Border (2) + title + footer.
  const visible = Math.max(1, height - 4);
  const top = clampOffset(offset, lines.length, visible);
  useInput((input, key) => {
    if (key.escape || input === 'q' || input === 'D') return onClose();
    if (input === 'c' || input === '@') return onCompose();
    // From the newest offset, not this render's: two keys may come before the next render.
    const by = (delta: number) => setOffset((o) => clampOffset(clampOffset(o, lines.length, visible) + delta, lines.length, visible));
    if (key.upArrow || input === 'k') by(-1);
    else if (key.downArrow || input === 'j') by(1);
    else if (key.pageUp) by(-visible);
    else if (key.pageDown || input === ' ') by(visible);
    else if (key.home || input === 'g') setOffset(0);
    else if (key.end || input === 'G') setOffset(clampOffset(lines.length, lines.length, visible));
  });
  const shown = lines.slice(top, top + visible);
  const footer = `${lines.length === 0 ? 0 : top + 1}–${top + shown.length} of ${lines.length} · ↑↓ PgUp PgDn scroll · c write to the row · Esc close`;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text bold color={theme.help.fg} wrap="truncate">
        {title}
      </Text>
      {shown.map((line, i) => (
        <Text key={top + i} wrap="truncate">
          {line || ' '}
        </Text>
      ))}
      {Array.from({ length: Math.max(0, visible - shown.length) }, (_, i) => (
        <Text key={`pad${i}`}> </Text>
      ))}
      <Text color={theme.help.fg} dimColor wrap="truncate">
        {footer}
      </Text>
    </Box>
  );
}
