// The names a row may not take, on their own: the row-argument check (row-spec.ts) runs in the thin
// client before it launches a server, and taking this set from the config schema would load zod and
// the whole schema there, about 100 ms of CPU on the way to the server's spawn (issue #33).

/** Names a row may not take: the broadcast target and the operator's own session. */
export const RESERVED_ROW_NAMES: ReadonlySet<string> = new Set(['all', 'operator']);
