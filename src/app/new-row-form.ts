// The "new row" dialog's (N) fields as a pure reducer: which field has the focus and the line in
// each, edited with the composer's line keys (composer-line-edit.ts: Ctrl-A/E/U/K/W, arrows, Home,
// End) so the two places the operator types text on the dashboard behave alike. Tab / Shift-Tab and
// Down / Up move between fields, Enter submits, Esc cancels; the focus opens on the first field,
// the name, as the fields are read from the top.
import type { InkKeyLike } from '../config/match-ink-input.js';
import { editLine, type Line } from './composer-line-edit.js';
import type { NewRowRequest } from './intents.js';

export const NEW_ROW_FIELDS = ['name', 'what', 'cwd', 'worktree'] as const;
export type NewRowField = (typeof NEW_ROW_FIELDS)[number];

export interface NewRowForm {
  focus: NewRowField;
  lines: Readonly<Record<NewRowField, Line>>;
}

export type NewRowFormEffect = 'submit' | 'cancel' | null;

const EMPTY: Line = { text: '', cursor: 0 };

export function emptyNewRowForm(): NewRowForm {
  return { focus: NEW_ROW_FIELDS[0], lines: { name: EMPTY, what: EMPTY, cwd: EMPTY, worktree: EMPTY } };
}

function moveFocus(form: NewRowForm, step: 1 | -1): NewRowForm {
  const n = NEW_ROW_FIELDS.length;
  return { ...form, focus: NEW_ROW_FIELDS[(NEW_ROW_FIELDS.indexOf(form.focus) + step + n) % n]! };
}

/** One key (see key-burst.ts for reads that hold several) applied to the form. */
export function newRowFormKey(form: NewRowForm, input: string, key: InkKeyLike): { form: NewRowForm; effect: NewRowFormEffect } {
  if (key.escape) return { form, effect: 'cancel' };
  if (key.return) return { form, effect: 'submit' };
  if (key.tab) return { form: moveFocus(form, key.shift ? -1 : 1), effect: null };
  if (key.downArrow) return { form: moveFocus(form, 1), effect: null };
  if (key.upArrow) return { form: moveFocus(form, -1), effect: null };
  const line = editLine(form.lines[form.focus], input, key);
  if (!line) return { form, effect: null };
  return { form: { ...form, lines: { ...form.lines, [form.focus]: line } }, effect: null };
}

/** What the filled form asks for. The worktree field: "+" (or "y") its own branch swb/<name>, else a branch name. */
export function newRowRequest(form: NewRowForm, defaultCwd: string): NewRowRequest {
  const v = (f: NewRowField) => form.lines[f].text.trim();
  const wt = v('worktree');
  const worktree = wt === '' ? undefined : wt === '+' || /^y(es)?$/i.test(wt) ? '' : wt;
  return { name: v('name'), what: v('what'), cwd: v('cwd') || defaultCwd, ...(worktree !== undefined ? { worktree } : {}) };
}
