// The one list of error codes Switchboard speaks, at the socket and in the CLI (DESIGN §4).
// Hub handlers return these as values; exceptions inside become INTERNAL at the socket.

export const ERROR_CODES = [
  'BAD_FRAME', // not JSON, not UTF-8, not a JSON-RPC object
  'FRAME_TOO_LARGE', // a line longer than the frame limit (checked before parsing)
  'BAD_REQUEST', // a well-formed frame whose method or params are wrong
  'UNKNOWN_METHOD',
  'UNAUTHENTICATED', // no hello yet, or a token that does not match
  'SESSION_COLLISION', // the handle is held by a live session or a token-holding row
  'UNKNOWN_PEER',
  'AMBIGUOUS_TARGET',
  'MESSAGE_TOO_LARGE',
  'QUEUE_FULL',
  'RATE_LIMITED',
  'MESSAGE_ID_CONFLICT',
  'INVALID_REPLY',
  'NOT_FOUND',
  'EXPIRED',
  'TIMEOUT',
  'NO_HUB', // client side: no hub could be reached or started
  'HUB_RUNNING', // another hub already holds the workspace lock
  'UNSAFE_RUNTIME_DIR', // runtime dir has wrong owner, mode or is a symlink
  'RECOVERY_REQUIRED',
  'SHUTTING_DOWN',
  'INTERNAL',
  // Appended, not inserted: a code's JSON-RPC number is derived from its index.
  'HUB_DENIED', // client side: the system refused this process the hub socket (EPERM/EACCES), e.g. a sandbox
  'DISK_FULL', // the store could not write: no space (SQLITE_FULL); nothing was accepted
  'DB_LOCKED', // another process holds a lock on mail.db past the hub's retries (SQLITE_BUSY)
  'HUB_BUSY', // too many connections, a full listen backlog, or a connection that does not read its answers
  'REPLY_BUDGET', // two rows used up their budget of messages to each other (or a reply chain too deep) without the operator
  'NO_SERVER', // the workspace has a hub but no swb server (rows, dashboards) runs
  'ROWS_RUNNING', // stopping the server would end running rows, and --force was not given
  'ROW_EXISTS', // a row of that name runs already
  'VERSION_MISMATCH', // the running server speaks another client wire: restart it
  'NOT_A_REPO', // a worktree row outside a git repository
  'BRANCH_EXISTS', // the worktree's branch exists already (reuse it, or pick another)
  'DIRTY', // a checkout has uncommitted changes the operation would lose or merge silently
  'MERGE_CONFLICT', // the merge (or rebase) conflicts; both trees were left as they were
  'UNMERGED', // removing the worktree would lose commits no other branch has
  'GIT_FAILED', // git refused, is missing, or is too old
  'NODE_COLLISION', // another swb server holds this federation node name (its claim is fresh)
  'FEDERATION_OFF', // mail to handle@node, but this server is not federated
  'NO_CONFIG', // `swb trust`: no switchboard.json where it looked
  'CONFIG_INVALID', // a config file that does not parse or check (its problems name the file and field)
  'TRUST_STORE_UNSAFE', // the operator's trust store could not be written privately
  'RESOURCE_WAIT_TIMEOUT', // a reservation was not granted within its wait; the ticket was cancelled, nothing ran
  'STALE_POLICY', // the resource's policy changed after this unused grant; the grant is void, ask again
  'TICKET_LIMIT', // a holder has too many open reservation tickets
  'TICKET_STATE', // the ticket is not in a state this operation applies to (e.g. released, or uncertain without force)
  'READ_ONLY', // a view-only web credential asked to change something (type, send, read, close ...)
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** JSON-RPC numeric codes: the standard ones where they fit, the -32000 server range otherwise. */
const RPC_NUMBERS: Partial<Record<ErrorCode, number>> = {
  BAD_FRAME: -32700,
  FRAME_TOO_LARGE: -32700,
  BAD_REQUEST: -32602,
  UNKNOWN_METHOD: -32601,
  INTERNAL: -32603,
};

export function rpcNumberFor(code: ErrorCode): number {
  return RPC_NUMBERS[code] ?? -32000 - ERROR_CODES.indexOf(code);
}

/** An error as a value: a stable code plus one human sentence, and optional structured details. */
export interface SwbErrorValue {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The same, throwable, for code paths that unwind (inside a process, never across the socket). */
export class SwbError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SwbError';
  }

  toValue(): SwbErrorValue {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

export function swbError(code: ErrorCode, message: string, details?: Record<string, unknown>): SwbErrorValue {
  return details ? { code, message, details } : { code, message };
}

export function isSwbErrorValue(value: unknown): value is SwbErrorValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    isErrorCode((value as { code?: unknown }).code) &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}
