// stdioTo(fd): makes the process's own stdout and stderr (fds 1 and 2) the file open at `fd`, as a
// shell's `>file 2>&1` does for a command it starts. The workspace server that bin/swb starts beside
// its client (src/server/early-gate.ts) is started with them on /dev/null, since nobody knows its
// workspace, nor so its log, until the client says go; from then on what node itself prints there —
// a fatal error, an out-of-memory report — belongs in the workspace's server.out, as it does for a
// server its client starts. Node has no dup2.
//
// Plain node_api.h (napi-call.h); errno names in errno-name.h, shared with the other addons.
#define ADDON_NAME "stdio-to"
#include "napi-call.h"
#include "errno-name.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static napi_value throw_errno(napi_env env, int e, const char *syscall) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", syscall, strerror(e));
  napi_value code, msg, error;
  NAPI_CALL(env, napi_create_string_utf8(env, errno_name(e), NAPI_AUTO_LENGTH, &code));
  NAPI_CALL(env, napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg));
  NAPI_CALL(env, napi_create_error(env, code, msg, &error));
  napi_throw(env, error);
  return NULL;
}

static napi_value stdio_to(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  double value = -1;
  if (argc < 1 || napi_get_value_double(env, argv[0], &value) != napi_ok || !(value >= 3 && value <= INT32_MAX) || value != (double)(int32_t)value) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", "stdioTo: fd must be an integer from 3 to 2**31-1 (not stdin, stdout or stderr itself)");
    return NULL;
  }
  int fd = (int32_t)value;
  for (int target = 1; target <= 2; target++) {
    int r;
    do r = dup2(fd, target);
    while (r == -1 && errno == EINTR);
    if (r == -1) return throw_errno(env, errno, "dup2");
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  NAPI_CALL(env, napi_create_function(env, "stdioTo", NAPI_AUTO_LENGTH, stdio_to, NULL, &fn));
  NAPI_CALL(env, napi_set_named_property(env, exports, "stdioTo", fn));
  return exports;
}
