// The project's own native addons (binding.gyp; npm builds them on install into build/Release).
// Found from the package root rather than from the calling module: this code also runs from the
// esbuild bundles (dist/cli-bundle/chunks/, dist/server.bundle.cjs), at other depths than
// dist/src/. A computed path also keeps esbuild from trying to bundle the .node file.
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

/** The addon built as build/Release/`file`, or why it cannot be loaded (`what` names it there). */
export function requireNativeAddon<T>(file: string, what: string): T | string {
  let path: string | undefined;
  try {
    path = join(packageRoot(), 'build', 'Release', file);
    return createRequire(import.meta.url)(path) as T;
  } catch (err) {
    // First line only: require() appends a multi-line "Require stack" that says nothing useful here.
    return `cannot load ${what}${path ? ` (${path})` : ''}: ${(err as Error).message.split('\n')[0]}`;
  }
}

/**
 * The native hook client (native/hook-client.c, built beside the addons as build/Release/swb-hook),
 * or null where it was not built (no compiler at install, or a platform it does not build on): the
 * rows' hooks then run `swb hook`, which does the same in node.
 */
export function nativeHookClientPath(): string | null {
  try {
    const path = join(packageRoot(), 'build', 'Release', 'swb-hook');
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return null;
  }
}

/**
 * The descriptor under a stream's or socket's libuv handle (node keeps it there, untyped; a
 * net.Socket has no public fd), if it has one: none once it is destroyed, nor where libuv has no
 * fd (Windows pipes).
 */
export function handleFd(stream: object): number | undefined {
  const fd = (stream as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' && Number.isInteger(fd) && fd >= 0 ? fd : undefined;
}
