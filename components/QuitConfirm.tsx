import { Box, Text } from 'ink';
import type { Theme } from '../src/config/theme.js';

export interface QuitConfirmProps {
  running: number;
  theme: Theme;
  width: number;
  height: number;
}

export function QuitConfirm({ running, theme, width, height }: QuitConfirmProps) {
  return (
    <Box width={width} height={height} alignItems="center" justifyContent="center">
      <Box borderStyle="round" borderColor={theme.error} paddingX={2} flexDirection="column">
        <Text bold color={theme.error}>
          Quit Switchboard?
        </Text>
        <Text color={theme.help.fg}>
          {running} row{running === 1 ? ' is' : 's are'} still running and will be ended.
        </Text>
        <Text color={theme.help.fg}>y: quit · n / Esc: stay</Text>
      </Box>
    </Box>
  );
}
