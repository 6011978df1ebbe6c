// An fd out of the event loop's epoll set at once (native/loop-disarm.c says why: libuv deletes a
// stopped fd only when epoll next reports it, which wakes the loop for nothing).
import { requireNativeAddon } from './native-addon.js';

interface Addon {
  disarm(fd: number): boolean;
}

/** Loaded at the first call; null where it was not built. */
let addon: Addon | null | undefined;

/**
 * Deletes `fd`, whose reading libuv has just stopped, from the event loop's epoll set; true when it
 * is not in it any more. False where the addon was not built or off Linux: libuv then deletes it
 * the next time it turns readable, as it always did.
 */
export function disarmStoppedRead(fd: number): boolean {
  if (addon === undefined) {
    const loaded = requireNativeAddon<Addon>('loop_disarm.node', 'the loop-disarm addon');
    addon = typeof loaded === 'string' ? null : loaded;
  }
  return addon?.disarm(fd) ?? false;
}
