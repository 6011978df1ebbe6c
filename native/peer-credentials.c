// peerCredentials(fd) -> { pid, uid, gid }: who is at the other end of a connected Unix-domain
// socket, as the kernel recorded it (at connect() for the accepting side, at listen() for the
// connecting side). Node exposes no API for this; the hub and the client use it to check each
// other without trusting anything the peer says about itself.
//
// Plain node_api.h (napi-call.h); errno names in errno-name.h, shared with the key relay.
// glibc declares struct ucred only under _GNU_SOURCE; it must precede every system header.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#define ADDON_NAME "peer-credentials"
#include "napi-call.h"
#include "errno-name.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__linux__) || defined(__APPLE__)
#define PC_SUPPORTED 1
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

#ifdef PC_SUPPORTED
static napi_value throw_errno(napi_env env, int e, const char *syscall) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", syscall, strerror(e));
  napi_value code, msg, error, name;
  NAPI_CALL(env, napi_create_string_utf8(env, errno_name(e), NAPI_AUTO_LENGTH, &code));
  NAPI_CALL(env, napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg));
  NAPI_CALL(env, napi_create_error(env, code, msg, &error));
  NAPI_CALL(env, napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &name));
  NAPI_CALL(env, napi_set_named_property(env, error, "syscall", name));
  napi_throw(env, error);
  return NULL;
}
#endif

static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));

  napi_valuetype type = napi_undefined;
  if (argc >= 1) NAPI_CALL(env, napi_typeof(env, argv[0], &type));
  if (type != napi_number) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "peerCredentials: fd must be a number");
    return NULL;
  }
  // napi_get_value_int32 would silently truncate 3.5 or wrap 2**32+3 into a valid-looking fd.
  double value;
  NAPI_CALL(env, napi_get_value_double(env, argv[0], &value));
  if (!(value >= 0 && value <= INT32_MAX) || value != (double)(int32_t)value) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", "peerCredentials: fd must be an integer between 0 and 2**31-1");
    return NULL;
  }
  int fd = (int32_t)value;

#ifndef PC_SUPPORTED
  (void)fd;
  napi_throw_error(env, "ERR_PEER_CREDENTIALS_UNSUPPORTED", "peerCredentials: unsupported on this platform");
  return NULL;
#else
  // getpeername first: SO_PEERCRED on an unconnected socket, or on a TCP socket, succeeds with
  // made-up credentials (pid 0, the overflow uid 65534), which would read as a real answer.
  struct sockaddr_storage peer;
  socklen_t peer_len = sizeof peer;
  memset(&peer, 0, sizeof peer);
  if (getpeername(fd, (struct sockaddr *)&peer, &peer_len) != 0) return throw_errno(env, errno, "getpeername");
  if (peer.ss_family != AF_UNIX) {
    napi_throw_error(env, "EAFNOSUPPORT", "peerCredentials: not a Unix-domain socket");
    return NULL;
  }

  int64_t pid, uid, gid;
#if defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return throw_errno(env, errno, "getsockopt(SO_PEERCRED)");
  pid = cred.pid;
  uid = cred.uid;
  gid = cred.gid;
#else  // __APPLE__
  uid_t peer_uid;
  gid_t peer_gid;
  if (getpeereid(fd, &peer_uid, &peer_gid) != 0) return throw_errno(env, errno, "getpeereid");
  pid_t peer_pid = 0;
  socklen_t len = sizeof peer_pid;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &peer_pid, &len) != 0) return throw_errno(env, errno, "getsockopt(LOCAL_PEERPID)");
  pid = peer_pid;
  uid = peer_uid;
  gid = peer_gid;
#endif

  napi_value result, v;
  NAPI_CALL(env, napi_create_object(env, &result));
  NAPI_CALL(env, napi_create_int64(env, pid, &v));
  NAPI_CALL(env, napi_set_named_property(env, result, "pid", v));
  NAPI_CALL(env, napi_create_int64(env, uid, &v));
  NAPI_CALL(env, napi_set_named_property(env, result, "uid", v));
  NAPI_CALL(env, napi_create_int64(env, gid, &v));
  NAPI_CALL(env, napi_set_named_property(env, result, "gid", v));
  return result;
#endif
}

NAPI_MODULE_INIT() {
  napi_value fn;
  NAPI_CALL(env, napi_create_function(env, "peerCredentials", NAPI_AUTO_LENGTH, peer_credentials, NULL, &fn));
  NAPI_CALL(env, napi_set_named_property(env, exports, "peerCredentials", fn));
  return exports;
}
