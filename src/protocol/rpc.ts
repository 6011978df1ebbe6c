// JSON-RPC 2.0 envelopes and their classification. Only shape is checked here; each method's
// params are parsed by its schema in method-params.ts.
import { rpcNumberFor, swbError, type ErrorCode, type SwbErrorValue } from './error-codes.js';

export type RpcId = string | number;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RpcId;
  method: string;
  params?: unknown;
}
export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}
export interface RpcErrorObject {
  code: number;
  message: string;
  data: { code: ErrorCode; details?: Record<string, unknown> };
}
export interface RpcSuccess {
  jsonrpc: '2.0';
  id: RpcId;
  result: unknown;
}
export interface RpcFailure {
  jsonrpc: '2.0';
  id: RpcId | null;
  error: RpcErrorObject;
}
export type RpcResponse = RpcSuccess | RpcFailure;

export type IncomingMessage =
  | { kind: 'request'; message: RpcRequest }
  | { kind: 'notification'; message: RpcNotification }
  | { kind: 'response'; message: RpcResponse }
  | { kind: 'intercom'; envelope: Record<string, unknown> }
  | { kind: 'invalid'; id: RpcId | null; error: SwbErrorValue };

function isId(v: unknown): v is RpcId {
  return (typeof v === 'string' && v.length <= 128) || (typeof v === 'number' && Number.isFinite(v));
}

/** Parses one decoded line. Never throws. */
export function classifyLine(text: string): IncomingMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', id: null, error: swbError('BAD_FRAME', 'A frame was not valid JSON.') };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', id: null, error: swbError('BAD_FRAME', 'A frame must be one JSON object (batches are not supported).') };
  }
  const obj = value as Record<string, unknown>;
  if (obj.jsonrpc === undefined && typeof obj.type === 'string') return { kind: 'intercom', envelope: obj };
  const id = isId(obj.id) ? obj.id : null;
  if (obj.jsonrpc !== '2.0') {
    return { kind: 'invalid', id, error: swbError('BAD_FRAME', 'A frame must carry "jsonrpc": "2.0".') };
  }
  if (typeof obj.method === 'string') {
    if (obj.method.length > 64) return { kind: 'invalid', id, error: swbError('BAD_REQUEST', 'A method name is at most 64 characters.') };
    if (obj.params !== undefined && (typeof obj.params !== 'object' || obj.params === null)) {
      return { kind: 'invalid', id, error: swbError('BAD_REQUEST', 'params must be an object.') };
    }
    if (obj.id === undefined) return { kind: 'notification', message: { jsonrpc: '2.0', method: obj.method, params: obj.params } };
    if (id === null) return { kind: 'invalid', id: null, error: swbError('BAD_FRAME', 'A request id must be a string or a number.') };
    return { kind: 'request', message: { jsonrpc: '2.0', id, method: obj.method, params: obj.params } };
  }
  if (id !== null && (Object.hasOwn(obj, 'result') || Object.hasOwn(obj, 'error'))) {
    return { kind: 'response', message: obj as unknown as RpcResponse };
  }
  // JSON-RPC's error about no request in particular (id null): e.g. why the hub closes a connection.
  if (obj.id === null && typeof obj.error === 'object' && obj.error !== null) {
    return { kind: 'response', message: obj as unknown as RpcResponse };
  }
  return { kind: 'invalid', id, error: swbError('BAD_FRAME', 'A frame is neither a request, a notification nor a response.') };
}

export function success(id: RpcId, result: unknown): RpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

export function failure(id: RpcId | null, error: SwbErrorValue): RpcFailure {
  const data: RpcErrorObject['data'] = error.details ? { code: error.code, details: error.details } : { code: error.code };
  return { jsonrpc: '2.0', id, error: { code: rpcNumberFor(error.code), message: error.message, data } };
}

export function notification(method: string, params: unknown): RpcNotification {
  return { jsonrpc: '2.0', method, params };
}

/** Reads the typed error back out of a failure response (client side). */
export function errorFromFailure(f: RpcFailure): SwbErrorValue {
  const code = f.error?.data?.code;
  const message = typeof f.error?.message === 'string' ? f.error.message : 'The hub returned an error without a message.';
  const details = f.error?.data?.details;
  return typeof code === 'string' ? { code: code as ErrorCode, message, ...(details ? { details } : {}) } : { code: 'INTERNAL', message };
}
