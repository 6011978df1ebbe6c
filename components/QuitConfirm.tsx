import { Box, Text } from 'ink';
import type { Theme } from '../src/config/theme.js';

export interface ConfirmBoxProps {
  title: string;
  /** Already sanitized. */
  lines: readonly string[];
  theme: Theme;
  width: number;
  height: number;
}

/** A centred y/n question before something that ends running programs (quit, close, restart). */
export function ConfirmBox({ title, lines, theme, width, height }: ConfirmBoxProps) {
  return (
    <Box width={width} height={height} alignItems="center" justifyContent="center">
      <Box borderStyle="round" borderColor={theme.error} paddingX={2} flexDirection="column">
        <Text bold color={theme.error}>
          {title}
        </Text>
        {lines.map((line, i) => (
          <Text key={i} color={theme.help.fg}>
            {line}
          </Text>
        ))}
      </Box>
    </Box>
  );
}

export interface QuitConfirmProps {
  running: number;
  /** The key that detaches instead (rows run on), or '' when unbound. */
  detachKey?: string;
  theme: Theme;
  width: number;
  height: number;
}

export function QuitConfirm({ running, detachKey = '', theme, width, height }: QuitConfirmProps) {
  const lines = [
    `${running} row${running === 1 ? ' is' : 's are'} still running and will be ended with the server.`,
    `y: quit${detachKey ? ` · ${detachKey}: detach, rows run on` : ''} · n / Esc: stay`,
  ];
  return <ConfirmBox title="Quit Switchboard?" lines={lines} theme={theme} width={width} height={height} />;
}
