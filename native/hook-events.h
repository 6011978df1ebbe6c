// The hook events the native hook client takes on its fast path: HOOK_EVENTS of
// src/agents/hook-signal.ts, in its order (test/unit/cli/native-hook-events.test.ts keeps the two the
// same). An event missing here is not refused: the client hands it to the node hook (`swb hook`),
// which knows every event, so a newer list is only slower until this one catches up.
#ifndef SWB_HOOK_EVENTS_H
#define SWB_HOOK_EVENTS_H

static const char *const HOOK_EVENTS[] = {
  "stop",
  "user-prompt-submit",
  "pre-tool-use",
  "post-tool-use",
  "subagent-stop",
  "notification",
  "permission-request",
  "pre-compact",
  "post-compact",
  "session-start",
  "session-end",
  "stop-failure",
  "turn-end",
  "interrupt",
};

#endif
