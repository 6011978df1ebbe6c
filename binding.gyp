{
  # npm runs `node-gyp rebuild` on install because this file exists and package.json has no
  # install script; the results are build/Release/peer_credentials.node (src/util/peer-credentials.ts),
  # build/Release/key_relay.node (src/server/tty-key-relay.ts), build/Release/pty_spawn.node
  # (src/rows/pty-spawn-strategy.ts), build/Release/stdio_to.node (src/util/stdio-to.ts),
  # build/Release/loop_disarm.node (src/util/loop-disarm.ts) and build/Release/swb-hook, the native
  # hook client the agents' hooks run (native/hook-client.c; src/server/native-tools.ts picks it, or
  # `swb hook` where it did not build).
  "targets": [
    {
      "target_name": "peer_credentials",
      "sources": ["native/peer-credentials.c"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
      "xcode_settings": {
        "WARNING_CFLAGS": ["-Wall", "-Wextra"],
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      }
    },
    {
      "target_name": "key_relay",
      "sources": ["native/key-relay.c"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration", "-pthread"],
      "ldflags": ["-pthread"],
      "xcode_settings": {
        "WARNING_CFLAGS": ["-Wall", "-Wextra"],
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      }
    },
    {
      # Linux (glibc 2.34+) only: elsewhere it builds and exports nothing (src/rows/pty-spawn-strategy.ts).
      "target_name": "pty_spawn",
      "sources": ["native/pty-spawn.c"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration", "-pthread"],
      "ldflags": ["-pthread"],
      "xcode_settings": {
        "WARNING_CFLAGS": ["-Wall", "-Wextra"],
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      }
    },
    {
      "target_name": "loop_disarm",
      "sources": ["native/loop-disarm.c"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
      "xcode_settings": {
        "WARNING_CFLAGS": ["-Wall", "-Wextra"],
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      }
    },
    {
      "target_name": "stdio_to",
      "sources": ["native/stdio-to.c"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
      "xcode_settings": {
        "WARNING_CFLAGS": ["-Wall", "-Wextra"],
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      }
    },
    {
      # A plain program, not an addon: no node headers, no libuv; it is started as its own process.
      "target_name": "swb-hook",
      "type": "executable",
      "sources": ["native/hook-client.c"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration", "-O2"],
      "xcode_settings": {
        "WARNING_CFLAGS": ["-Wall", "-Wextra"],
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      }
    }
  ]
}
