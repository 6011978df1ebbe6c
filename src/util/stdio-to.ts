// The process's stdout and stderr pointed at a file (native/stdio-to.c says why; node has no dup2).
import { closeSync, openSync } from 'node:fs';
import { requireNativeAddon } from './native-addon.js';

interface Addon {
  stdioTo(fd: number): void;
}

/**
 * Appends what this process writes to fds 1 and 2 — its own and node's — to `file` (made 0600 if
 * new); throws the open's error, or the addon's. Returns false, having changed nothing, where the
 * addon was not built.
 */
export function stdioToFile(file: string): boolean {
  const addon = requireNativeAddon<Addon>('stdio_to.node', 'the stdio-to addon');
  if (typeof addon === 'string') return false;
  const fd = openSync(file, 'a', 0o600);
  try {
    addon.stdioTo(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}
