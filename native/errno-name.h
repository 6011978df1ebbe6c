// The symbolic name of an errno, for the err.code (and the relay's `ended`) that JavaScript
// branches on, the way it does for Node's own system errors. strerrorname_np is glibc-only, so
// this lists what the addons' calls can report (getpeername, getsockopt and getpeereid for
// peer-credentials; read, write and poll on a terminal or a pty for the key relay; socket, connect,
// send and recv on the hub's socket and execv for the native hook client); anything else
// is "UNKNOWN", as Node names an errno it does not know, and still gets a readable message.
#ifndef SWB_ERRNO_NAME_H
#define SWB_ERRNO_NAME_H

#include <errno.h>

static inline const char *errno_name(int e) {
  switch (e) {
    case EACCES: return "EACCES";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EAGAIN: return "EAGAIN";
    case EBADF: return "EBADF";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ECONNRESET: return "ECONNRESET";
    case EFAULT: return "EFAULT";
    case EINTR: return "EINTR";
    case EINVAL: return "EINVAL";
    case EIO: return "EIO";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOENT: return "ENOENT";
    case ENOEXEC: return "ENOEXEC";
    case ENOBUFS: return "ENOBUFS";
    case ENOMEM: return "ENOMEM";
    case ENOPROTOOPT: return "ENOPROTOOPT";
    case ENOTCONN: return "ENOTCONN";
    case ENOTDIR: return "ENOTDIR";
    case ENOTSOCK: return "ENOTSOCK";
    case ENXIO: return "ENXIO";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EPERM: return "EPERM";
    case EPIPE: return "EPIPE";
    case ETIMEDOUT: return "ETIMEDOUT";
    default: return "UNKNOWN";
  }
}

#endif
