// Shared by the project's addons (plain node_api.h, no node-addon-api: no npm dependency, and
// N-API keeps them working across Node versions without a rebuild). Define ADDON_NAME first.
#ifndef SWB_NAPI_CALL_H
#define SWB_NAPI_CALL_H

#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>

#include <stdbool.h>

// Returns NULL from the N-API callback when `call` fails, with an exception pending: a failing
// napi_* call usually leaves one; one naming the addon is thrown if not.
#define NAPI_CALL(env, call)                                                            \
  do {                                                                                  \
    if ((call) != napi_ok) {                                                            \
      bool pending = false;                                                             \
      napi_is_exception_pending((env), &pending);                                       \
      if (!pending) napi_throw_error((env), NULL, ADDON_NAME ": N-API call failed");    \
      return NULL;                                                                      \
    }                                                                                   \
  } while (0)

#endif
