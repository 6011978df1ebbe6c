// disarm(fd): takes `fd` out of the event loop's epoll set now, rather than when it next turns
// readable. libuv stops watching an fd lazily (uv__io_stop only forgets it; the fd is deleted from
// epoll when epoll next reports it): a row nobody draws stops reading its pty between batches
// (src/rows/row.ts), and every burst its program wrote after the stop woke the server once, just
// for libuv to delete the fd - eight streaming rows under bench:render's bursts, ~30 wakes a second
// that read nothing, each ~180 µs of CPU on these machines (what an empty node setTimeout loop costs
// a wake, by /proc/self/schedstat; a bare C epoll loop, ~45). Deleting it here is what libuv would do
// on that wake: it has already set the watcher's registered events to none, so its next start
// adds the fd again (EPOLL_CTL_ADD). Only an fd whose reading libuv has stopped may be passed.
//
// Linux only (epoll); elsewhere it does nothing and returns false. Plain node_api.h (napi-call.h)
// plus libuv's uv_backend_fd, both from node's own headers.
#define ADDON_NAME "loop-disarm"
#include "napi-call.h"

#include <stdint.h>
#include <uv.h>

#ifdef __linux__
#include <errno.h>
#include <sys/epoll.h>
#endif

static napi_value disarm(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  double value = -1;
  if (argc < 1 || napi_get_value_double(env, argv[0], &value) != napi_ok || !(value >= 0 && value <= INT32_MAX) || value != (double)(int32_t)value) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", "disarm: fd must be an integer from 0 to 2**31-1");
    return NULL;
  }
  bool done = false;
#ifdef __linux__
  uv_loop_t *loop = NULL;
  NAPI_CALL(env, napi_get_uv_event_loop(env, &loop));
  int epfd = uv_backend_fd(loop);
  // A non-null event for kernels before 2.6.9. ENOENT: not in the set (never added, or deleted).
  struct epoll_event unused = {0};
  if (epfd >= 0) done = epoll_ctl(epfd, EPOLL_CTL_DEL, (int32_t)value, &unused) == 0 || errno == ENOENT;
#endif
  napi_value result;
  NAPI_CALL(env, napi_get_boolean(env, done, &result));
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  NAPI_CALL(env, napi_create_function(env, "disarm", NAPI_AUTO_LENGTH, disarm, NULL, &fn));
  NAPI_CALL(env, napi_set_named_property(env, exports, "disarm", fn));
  return exports;
}
