// How the Intercom HTTP API answers: JSON always, errors as {error: {code, message, details?}} with
// the hub's own code and sentence, and the HTTP status that fits the code (a client that knows HTTP
// but not swb still does the right thing: retry a 429 or 503 later, fix a 400, stop on a 403).
import type { ServerResponse } from 'node:http';
import type { ErrorCode, SwbErrorValue } from '../protocol/error-codes.js';

const STATUS: Partial<Record<ErrorCode, number>> = {
  BAD_FRAME: 400,
  BAD_REQUEST: 400,
  INVALID_REPLY: 400,
  FEDERATION_OFF: 400,
  AMBIGUOUS_TARGET: 400,
  FRAME_TOO_LARGE: 413,
  MESSAGE_TOO_LARGE: 413,
  // The listener authenticated the caller; the hub refusing it means "not yours to do".
  UNAUTHENTICATED: 403,
  READ_ONLY: 403,
  UNKNOWN_METHOD: 404,
  UNKNOWN_PEER: 404,
  NOT_FOUND: 404,
  SESSION_COLLISION: 409,
  MESSAGE_ID_CONFLICT: 409,
  EXPIRED: 410,
  QUEUE_FULL: 429,
  RATE_LIMITED: 429,
  REPLY_BUDGET: 429,
  TIMEOUT: 504,
  NO_HUB: 503,
  NO_SERVER: 503,
  HUB_BUSY: 503,
  SHUTTING_DOWN: 503,
  DB_LOCKED: 503,
  RECOVERY_REQUIRED: 503,
  DISK_FULL: 507,
  INTERNAL: 500,
};

export function httpStatusOf(code: ErrorCode): number {
  return STATUS[code] ?? 400;
}

export function answerJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function answerError(res: ServerResponse, error: SwbErrorValue): void {
  // A body refused for its size was not read to its end: the connection cannot carry another request.
  if (error.code === 'FRAME_TOO_LARGE') res.setHeader('Connection', 'close');
  const retry = error.details?.retryAfterMs;
  if (typeof retry === 'number' && retry > 0) res.setHeader('Retry-After', String(Math.ceil(retry / 1000)));
  answerJson(res, httpStatusOf(error.code), { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } });
}
