import { Box, Text } from 'ink';
import { KEY_SCOPES, SCOPE_TITLES } from '../src/config/key-actions.js';
import { describeBindings, type BindingHelp, type Keymap } from '../src/config/keymap.js';
import type { Theme } from '../src/config/theme.js';

export interface HelpOverlayProps {
  keymap: Keymap;
  theme: Theme;
  width: number;
  height: number;
}

/** What the glyphs in row headers mean. */
const LEGEND = '● idle  ◐ busy  ? waiting for you  ■ exited  ○ unknown  ✉ N unread';

type HelpLine = { kind: 'title'; text: string } | { kind: 'binding'; binding: BindingHelp };
const SPACER: HelpLine = { kind: 'title', text: ' ' };

/** Every action with its current (possibly remapped) keys, one section per scope. */
export function HelpOverlay({ keymap, theme, width, height }: HelpOverlayProps) {
  const all = describeBindings(keymap);
  const sections: HelpLine[][] = KEY_SCOPES.map((scope) => [
    { kind: 'title', text: SCOPE_TITLES[scope] },
    ...all.filter((b) => b.scope === scope).map((binding): HelpLine => ({ kind: 'binding', binding })),
  ]);
  const room = Math.max(1, height - 3); // border and the title line (with the legend)
  // Everything in one list when it fits; otherwise flowed into as many columns as the height needs
  // (a section starts a new column when it would not fit), so no binding is ever cut off.
  const columns: HelpLine[][] = [[]];
  for (const section of sections) {
    let column = columns[columns.length - 1]!;
    const gap = column.length > 0 ? 1 : 0;
    if (column.length + gap + section.length > room && column.length > 0) columns.push((column = []));
    else if (gap) column.push(SPACER);
    for (const line of section) {
      if (column.length >= room) columns.push((column = []));
      column.push(line);
    }
  }
  const columnWidth = Math.max(1, Math.floor((width - 4) / columns.length));
  // Each column sizes its key column to its own keys, leaving its descriptions as much room as it can.
  const keyWidths = columns.map((lines) => Math.max(4, ...lines.map((l) => (l.kind === 'binding' ? l.binding.keys.join(', ').length : 0))) + 2);
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text color={theme.help.fg} wrap="truncate">
        <Text bold>Switchboard keys — Esc or ? closes</Text>
        {` · ${LEGEND}`}
      </Text>
      <Box flexDirection="row">
        {columns.map((lines, c) => (
          // A gap after each column but the last: a description cut short ("…") must not run into the next column's keys.
          <Box key={c} flexDirection="column" width={columnWidth} paddingRight={c < columns.length - 1 ? 2 : 0}>
            {lines.map((line, i) =>
              line.kind === 'title' ? (
                <Text key={`t${i}`} color={theme.help.fg} bold wrap="truncate">
                  {line.text}
                </Text>
              ) : (
                <Text key={line.binding.action} wrap="truncate">
                  <Text color={theme.help.key}>{line.binding.keys.join(', ').padEnd(keyWidths[c]!)}</Text>
                  <Text color={theme.help.fg}>{line.binding.description}</Text>
                </Text>
              ),
            )}
          </Box>
        ))}
      </Box>
    </Box>
  );
}
