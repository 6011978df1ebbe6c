{
  # npm runs `node-gyp rebuild` on install because this file exists and package.json has no
  # install script; the results are build/Release/peer_credentials.node (src/util/peer-credentials.ts)
  # and build/Release/key_relay.node (src/server/tty-key-relay.ts).
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
    }
  ]
}
