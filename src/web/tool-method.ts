// One tool of the page as the server defines it: its params schema (checked before it runs), whether
// it changes anything (a read-only page is refused it), and what it does. The method tables
// (mail-tools.ts, row-tools.ts) are lists of these; page-tools.ts routes to them.
import type * as z from 'zod';
import type { OperatorPort } from '../hub/operator-port.js';
import type { ClientDesk } from '../app/client-desk.js';
import type { SwbErrorValue } from '../protocol/error-codes.js';
import { sanitize } from '../text/sanitize.js';
import type { ToolError } from './page-protocol.js';
import type { ToolErrorCode, ToolMethodName, ToolMethods } from './tool-protocol.js';
import type { NoteKind } from '../app/app-state.js';

/** What every tool works with: mail only through the port, rows only through the desk. */
export interface ToolContext {
  port: OperatorPort;
  desk: ClientDesk;
  /** How a change went, into the pages' notification list (while a page is open to keep one). */
  note(kind: NoteKind, text: string, row: string | null): void;
}

export type ToolAnswer<T> = { ok: T } | { error: ToolError };

export interface ToolMethod<N extends ToolMethodName = ToolMethodName> {
  /** The params' schema, built at the tool's first call (protocol/lazy-schema.ts says why). */
  params: () => z.ZodType<ToolMethods[N]['params']>;
  mutates: boolean;
  run(params: ToolMethods[N]['params'], ctx: ToolContext): ToolAnswer<ToolMethods[N]['result']> | Promise<ToolAnswer<ToolMethods[N]['result']>>;
}

/** A table of tools, each typed by its name. */
export type ToolTable = { [N in ToolMethodName]?: ToolMethod<N> };

export function toolError(code: ToolErrorCode, message: string): { error: ToolError } {
  return { error: { code, message } };
}

/** A hub error as a tool's: its code kept, its sentence one clean line. */
export function fromSwb(error: SwbErrorValue): { error: ToolError } {
  return { error: { code: error.code, message: sayLine(error.message, 400) } };
}

/** Text from a row, git or a peer, made one bounded line for an answer (the page inserts it as text). */
export function sayLine(text: string, maxChars = 300): string {
  return sanitize(text, { singleLine: true, maxChars });
}
