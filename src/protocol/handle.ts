// Session handles: a row's name, `operator`, or an external participant's chosen name (DESIGN §3).

export const HANDLE_PATTERN = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;
export const HANDLE_HINT = 'a handle is 1-64 of A-Z a-z 0-9 . _ - and may not start with -';
export const OPERATOR = 'operator';
/** The broadcast target: every live session except the sender. */
export const BROADCAST = 'all';
/** Handles nobody may take as their own. */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([BROADCAST, '*']);

export function isValidHandle(value: string): boolean {
  return HANDLE_PATTERN.test(value);
}
