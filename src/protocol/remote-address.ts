// Addresses across machines: `handle@node` is a row (or any session) on another node's server;
// a bare handle stays on this node. `all@*` (written `@all@*` in the composer) reaches every
// online session on every node; a bare `all` stays local. Loaded by the CLI too: nothing heavy here.
// Part of the wire (a `mail.send` names such addresses), so it sits beside the handle, below both the
// mentions that read it (src/text/) and the federation that routes it.
import { isValidHandle } from './handle.js';

export const ALL_NODES = '*';

export interface RemoteAddress {
  handle: string;
  node: string;
}

/**
 * Node names become NATS subject tokens and consumer names, which may not hold a dot, so they
 * follow the handle rule minus the dot: 1-64 of A-Z a-z 0-9 _ -, not starting with -.
 */
export const NODE_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
export const NODE_NAME_HINT = 'a node name is 1-64 of A-Z a-z 0-9 _ - and may not start with -';

export function isValidNodeName(value: string): boolean {
  return NODE_NAME_PATTERN.test(value);
}

/** `bob@build` → { handle: 'bob', node: 'build' }; anything without exactly one @ is null. */
export function parseRemoteAddress(address: string): RemoteAddress | null {
  const at = address.indexOf('@');
  if (at <= 0 || at !== address.lastIndexOf('@')) return null;
  const handle = address.slice(0, at);
  const node = address.slice(at + 1);
  if (!isValidHandle(handle)) return null;
  if (node !== ALL_NODES && !isValidNodeName(node)) return null;
  return { handle, node };
}

export function isRemoteAddress(address: string): boolean {
  return address.includes('@');
}

export function remoteAddress(handle: string, node: string): string {
  return `${handle}@${node}`;
}
