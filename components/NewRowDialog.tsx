// The "new row" dialog (N): three plain fields — name, profile or command, working directory —
// edited with ink-text-input. Tab / Shift-Tab move between fields, Enter starts the row, Esc closes.
// Problems (an unknown program, a missing directory) come back as a line under the fields and the
// dialog stays open with what was typed.
import { useRef, useState } from 'react';
import { Box, Text, useInput } from 'ink';
import TextInput from 'ink-text-input';
import type { Theme } from '../src/config/theme.js';
import type { NewRowRequest } from '../src/app/intents.js';

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

const FIELDS = ['name', 'what', 'cwd', 'worktree'] as const;
type Field = (typeof FIELDS)[number];

export function NewRowDialog({ theme, width, height, defaultCwd, profiles, problem, onSubmit, onCancel }: NewRowDialogProps) {
  const [values, setValues] = useState<Record<Field, string>>({ name: '', what: '', cwd: '', worktree: '' });
  // Enter may reach an input handler bound before the last render committed: read the latest values.
  const latest = useRef(values);
  const [field, setField] = useState<Field>('what');
  useInput((_input, key) => {
    if (key.escape) onCancel();
    else if (key.tab) setField((f) => FIELDS[(FIELDS.indexOf(f) + (key.shift ? FIELDS.length - 1 : 1)) % FIELDS.length]!);
  });
  const submit = () => {
    const v = latest.current;
    const wt = v.worktree.trim();
    // "+" (or "y") asks for a worktree on the default branch swb/<name>; a name asks for that branch.
    const worktree = wt === '' ? undefined : wt === '+' || /^y(es)?$/i.test(wt) ? '' : wt;
    onSubmit({ name: v.name.trim(), what: v.what.trim(), cwd: v.cwd.trim() || defaultCwd, ...(worktree !== undefined ? { worktree } : {}) });
  };
  const change = (f: Field, v: string) => {
    latest.current = { ...latest.current, [f]: v };
    setValues(latest.current);
  };
  const row = (f: Field, label: string, placeholder: string) => (
    <Box>
      <Text color={field === f ? theme.help.key : theme.help.fg} bold={field === f}>
        {label.padEnd(19)}
      </Text>
      <TextInput value={values[f]} focus={field === f} placeholder={placeholder} onChange={(v) => change(f, v)} onSubmit={submit} />
    </Box>
  );
  const inner = Math.min(width, 100);
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
          {problem ?? 'Enter starts it · Tab next field · Esc closes'}
        </Text>
      </Box>
    </Box>
  );
}
