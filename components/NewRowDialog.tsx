// The "new row" dialog (N): four plain fields — name, profile or command, working directory, git
// worktree — edited with the composer's line keys (src/app/new-row-form.ts). The focus opens on the
// name; Tab / Shift-Tab move between fields, Enter starts the row, Esc closes. Problems (an unknown
// program, a missing directory) come back as a line under the fields and the dialog stays open with
// what was typed. The form lives in a ref, not React state: keys that arrive in one read, or between
// two renders, all apply to the form the previous key left.
import { useReducer, useRef } from 'react';
import { Box, Text, useInput } from 'ink';
import type { Theme } from '../src/config/theme.js';
import type { NewRowRequest } from '../src/app/intents.js';
import { lineWindow } from '../src/app/composer-line-edit.js';
import { splitKeyBurst } from '../src/app/key-burst.js';
import { emptyNewRowForm, newRowFormKey, newRowRequest, type NewRowField, type NewRowForm } from '../src/app/new-row-form.js';
import { truncateToInkWidth } from '../src/text/ink-width.js';

export interface NewRowDialogProps {
  theme: Theme;
  width: number;
  height: number;
  /** Where a row starts when the field is left empty. */
  defaultCwd: string;
  profiles: readonly string[];
  /** The last attempt's problem, if it was refused. */
  problem: string | null;
  onSubmit: (request: NewRowRequest) => void;
  onCancel: () => void;
}

const LABEL = 19;

export function NewRowDialog({ theme, width, height, defaultCwd, profiles, problem, onSubmit, onCancel }: NewRowDialogProps) {
  const form = useRef<NewRowForm>(emptyNewRowForm());
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  useInput((input, key) => {
    for (const [text, k] of splitKeyBurst(input, key)) {
      const { form: next, effect } = newRowFormKey(form.current, text, k);
      form.current = next;
      if (effect === 'cancel') return onCancel();
      if (effect === 'submit') onSubmit(newRowRequest(next, defaultCwd));
    }
    redraw();
  });
  const inner = Math.min(width, 100);
  const room = Math.max(4, inner - 4 - LABEL);
  const row = (f: NewRowField, label: string, placeholder: string) => {
    const focused = form.current.focus === f;
    const line = form.current.lines[f];
    const win = lineWindow(line, room);
    const hint = line.text === '' ? truncateToInkWidth(placeholder, room - 1) : '';
    return (
      <Box>
        <Text color={focused ? theme.help.key : theme.help.fg} bold={focused}>
          {label.padEnd(LABEL)}
        </Text>
        {focused ? (
          <Text wrap="truncate">
            {win.before}
            <Text inverse>{win.at}</Text>
            {win.after}
            <Text color={theme.muted}>{hint}</Text>
          </Text>
        ) : (
          <Text wrap="truncate" {...(line.text === '' ? { color: theme.muted } : {})}>
            {line.text === '' ? hint : win.before + win.at + win.after}
          </Text>
        )}
      </Box>
    );
  };
  return (
    <Box width={width} height={height} alignItems="center" justifyContent="center">
      <Box flexDirection="column" width={inner} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
        <Text bold color={theme.help.fg}>
          New row
        </Text>
        {row('name', 'Name (optional)', 'from the profile or the program')}
        {row('what', 'Profile or command', profiles.slice(0, 6).join(', ') + ', or a command line')}
        {row('cwd', 'Working directory', defaultCwd)}
        {row('worktree', 'Git worktree', 'empty: none · + : its own branch swb/<name> · or a branch name')}
        <Text color={problem ? theme.state.waiting : theme.help.fg} wrap="truncate">
          {problem ?? 'Enter starts it · Tab next field · Ctrl-U clears a field · Esc closes'}
        </Text>
      </Box>
    </Box>
  );
}
