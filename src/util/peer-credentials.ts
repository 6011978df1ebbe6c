// Who is at the other end of a Unix-socket connection, as the kernel recorded it: the client uses it
// to check that the hub runs as its own uid before sending anything, the hub to tell an operator's
// process from one inside an agent row's process tree. Backed by the native addon built from
// native/peer-credentials.c (binding.gyp; npm builds it on install).
import type { Socket } from 'node:net';
import { handleFd, requireNativeAddon } from './native-addon.js';

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

interface Addon {
  peerCredentials(fd: number): PeerCredentials;
}

const SUPPORTED_PLATFORMS: readonly NodeJS.Platform[] = ['linux', 'darwin'];

// undefined: not tried yet. Loaded lazily so that modules importing this one (the CLI's send path)
// pay for the dlopen only when they actually ask.
let addon: Addon | null | undefined;
let unavailableReason: string | null = null;

function load(): Addon | null {
  if (addon !== undefined) return addon;
  if (!SUPPORTED_PLATFORMS.includes(process.platform)) {
    unavailableReason = `peer credentials are not supported on ${process.platform}`;
    return (addon = null);
  }
  const loaded = requireNativeAddon<Addon>('peer_credentials.node', 'the peer-credentials addon');
  if (typeof loaded === 'string') {
    unavailableReason = loaded;
    return (addon = null);
  }
  addon = loaded;
  return addon;
}

/**
 * The peer's pid/uid/gid: for an accepted connection, the connecting process as of connect(); for
 * a connecting socket, the process that called listen(). The pid is 0 when the peer lives in a pid
 * namespace this process cannot see.
 *
 * Returns null only when this install cannot tell (addon not built, unsupported platform; see
 * peerCredentialsUnavailableReason()). Throws, with the errno name as `code`, when the socket
 * itself cannot be asked: not connected (ENOTCONN), destroyed (EBADF), not a Unix socket
 * (EAFNOSUPPORT). A caller making a security decision should treat both as "unknown", not as a pass.
 */
export function peerCredentialsOf(socket: Socket): PeerCredentials | null {
  const native = load();
  if (!native) return null;
  const fd = handleFd(socket);
  if (fd === undefined) {
    throw Object.assign(new Error('peerCredentialsOf: the socket has no file descriptor (closed or not yet opened)'), { code: 'EBADF' });
  }
  try {
    return native.peerCredentials(fd);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_PEER_CREDENTIALS_UNSUPPORTED') {
      unavailableReason = (err as Error).message;
      addon = null;
      return null;
    }
    throw err;
  }
}

/** Why peerCredentialsOf() returns null on this install, or null when it works. Loads the addon if not yet loaded. */
export function peerCredentialsUnavailableReason(): string | null {
  load();
  return unavailableReason;
}
