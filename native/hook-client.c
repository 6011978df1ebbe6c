// swb-hook: `swb hook <event>` as a native program (issue #37). An agent starts a hook process at every
// prompt, tool call and stop, and a hook's start-up is the floor of how soon swb hears of a turn: node's
// own start is 100-500 ms of CPU-bound work on a loaded machine, this program's about a millisecond.
// It does what src/cli/hook-report.ts does on its fast path and nothing else:
//
//   swb-hook SWB-LAUNCHER <event> [payload-json]
//
// The row is named by SWB_SESSION, SWB_TOKEN and SWB_SOCKET in its own environment, or, when the agent
// scrubbed SWB_TOKEN (Gemini CLI's variable redaction), by the environment the agent itself was started
// with: SWB_HOOK_PARENT names the agent's pid (the recipe passes it), and /proc/PID/environ of that one
// process is read (see identity_of_hook_parent). Anything else - no such agent, another row's, a deeper
// chain of processes (the node hook walks every ancestor, src/cli/row-identity.ts), a flag, an event
// this build does not know, a wrong command line - is handed unchanged, stdin unread, to the node hook:
// SWB-LAUNCHER hook <event> ... (the row's swb launcher, as the recipe's command names it).
//
// On the fast path it reads the hook's JSON (Codex's argument, else stdin up to 1 MiB), passes on its
// top-level string fields (the hub picks the ones it reads: src/agents/hook-payload-fields.ts), writes
// hello and one request on the hub's socket in one write, waits a bounded time for the answer (Stop's
// 25 s: a mail lookup Claude Code waits on; 5 s for the others, which only report), and for `stop`
// prints Claude Code's block decision when the hub asks for one. It never fails the agent: every
// problem is one line on stderr and the exit status is 0 (2 only when it was started without an event).
// The hub is the trust boundary: it checks the token and every field, and a row speaks only as itself.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "errno-name.h"
#include "hook-events.h"
#include "hook-json.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE on the socket instead */
#endif

/** The hub's protocol version (src/protocol/limits.ts PROTOCOL_VERSION). */
#define PROTOCOL_VERSION 1
/** The hook's JSON is read up to this size, as the node hook reads it; the hub's answer line too. */
#define MAX_PAYLOAD_BYTES (1024 * 1024)
/** An agent's /proc/PID/environ is read up to this size, as src/util/proc-ancestry.ts reads it. */
#define MAX_ENVIRON_BYTES (1024 * 1024)
#define STOP_ANSWER_MS 25000
#define EVENT_ANSWER_MS 5000
/** A spawn this long before now is not believed (src/util/process-start.ts says why). */
#define MAX_SPAWN_AGE_MS 60000.0

static const char *event_name;

static double wall_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

static double monotonic_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/**
 * When the agent started this hook (ms epoch): the kernel's start of this pid where /proc tells it
 * (kept across the shell's exec of this program), else now. The hub orders a row's hooks by it.
 */
static double started_at(void) {
  double now = wall_ms();
#ifdef __linux__
  char stat[1024], uptime[64];
  FILE *f = fopen("/proc/self/stat", "r");
  size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
  if (f) fclose(f);
  stat[n] = '\0';
  f = fopen("/proc/uptime", "r");
  size_t m = f ? fread(uptime, 1, sizeof uptime - 1, f) : 0;
  if (f) fclose(f);
  uptime[m] = '\0';
  // "pid (comm) state ppid ...": comm may hold spaces and parens; starttime is the 20th field after it.
  char *close = strrchr(stat, ')');
  if (!close || m == 0) return now;
  char *field = close + 1;
  for (int k = 0; k < 20 && field; k++) field = strchr(field + 1, ' ');
  if (!field) return now;
  double ticks = strtod(field + 1, NULL), since_boot = strtod(uptime, NULL), hz = (double)sysconf(_SC_CLK_TCK);
  if (hz <= 0) return now;
  double spawned = now - (since_boot - ticks / hz) * 1000.0;
  if (spawned > now - MAX_SPAWN_AGE_MS) return spawned < now ? spawned : now;
#endif
  return now;
}

/** The node hook, given the same command line and the stdin this program left unread. */
static int run_node_hook(const char *launcher, int argc, char **argv) {
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) return 0;
  args[0] = (char *)launcher;
  args[1] = "hook";
  for (int i = 0; i < argc; i++) args[i + 2] = argv[i];
  execv(launcher, args);
  fprintf(stderr, "swb hook %s: cannot run %s (%s: %s)\n", argc > 0 ? argv[0] : "", launcher, errno_name(errno), strerror(errno));
  return 0;
}

/**
 * The row's token (and socket, where it has one) from the environment the agent named by SWB_HOOK_PARENT
 * was started with, when that environment names the same row as SWB_SESSION here: the first step of the
 * node hook's ancestor walk (src/cli/row-identity.ts, src/util/proc-ancestry.ts), taken here because the
 * agents that scrub SWB_TOKEN run every hook through this path, and node's start would be most of a
 * hook's latency (~60 ms against ~1 ms, the gemini-hooks real-agent test). Reads only what the kernel
 * lets a process of the same user read; the hub still checks the token. Returns 1 and fills `token` and
 * `socket_path` (pointers into `env`, which the caller frees) when found; 0 otherwise.
 */
static int identity_of_hook_parent(const char *session, buf_t *env, const char **token, const char **socket_path) {
#ifdef __linux__
  const char *hint = getenv("SWB_HOOK_PARENT");
  if (!hint || !*hint) return 0;
  char *end;
  long pid = strtol(hint, &end, 10);
  if (*end != '\0' || pid <= 1) return 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/environ", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char chunk[65536];
  while (env->len < MAX_ENVIRON_BYTES && !env->failed) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf_put(env, chunk, (size_t)n);
  }
  close(fd);
  buf_put(env, "\0", 1);  // the last entry ends even where the bound cut it
  if (env->failed) return 0;
  const char *their_session = NULL, *their_token = NULL, *their_socket = NULL;
  for (const char *entry = env->p; entry < env->p + env->len; entry += strlen(entry) + 1) {
    if (strncmp(entry, "SWB_SESSION=", 12) == 0) their_session = entry + 12;
    else if (strncmp(entry, "SWB_TOKEN=", 10) == 0) their_token = entry + 10;
    else if (strncmp(entry, "SWB_SOCKET=", 11) == 0) their_socket = entry + 11;
  }
  if (!their_session || strcmp(their_session, session) != 0 || !their_token || !*their_token) return 0;
  *token = their_token;
  if (their_socket && *their_socket) *socket_path = their_socket;
  return 1;
#else
  (void)session, (void)env, (void)token, (void)socket_path;
  return 0;
#endif
}

static int known_event(const char *e) {
  for (size_t i = 0; i < sizeof HOOK_EVENTS / sizeof *HOOK_EVENTS; i++)
    if (strcmp(HOOK_EVENTS[i], e) == 0) return 1;
  return 0;
}

/**
 * The hook's JSON from stdin when it is a pipe, file or socket, up to MAX_PAYLOAD_BYTES; a terminal or
 * nothing is none. Every agent writes the payload and closes the pipe before it waits for the hook.
 */
static void read_payload(buf_t *out) {
  struct stat st;
  if (fstat(0, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode))) return;
  char chunk[65536];
  while (out->len < MAX_PAYLOAD_BYTES && !out->failed) {
    size_t want = MAX_PAYLOAD_BYTES - out->len < sizeof chunk ? MAX_PAYLOAD_BYTES - out->len : sizeof chunk;
    ssize_t n = read(0, chunk, want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the end, EAGAIN (a non-blocking pipe with nothing yet) or an error: what came is all
    buf_put(out, chunk, (size_t)n);
  }
}

/** Says why, on stderr, as the node hook does; the agent goes on (exit 0). */
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "swb hook %s: ", event_name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 0;
}

static int unreachable(const char *socket_path, int e) { return fail("cannot reach the hub at %s (%s)", socket_path, errno_name(e)); }

/** What one answer line said. */
typedef struct {
  double id;
  int has_id, has_error, block, has_reason;
  buf_t code, message, reason;
} answer_t;

static int error_member(void *ctx, const char *key, jp_t *p, int depth) {
  answer_t *a = ctx;
  (void)depth;
  if (strcmp(key, "code") == 0 && p->i < p->n && p->s[p->i] == '"') return a->code.len = 0, jp_string(p, &a->code, 256);
  if (strcmp(key, "code") == 0 && p->i < p->n && (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))) {
    // The hub's JSON-RPC codes are numbers (-32004): said as they were written, as String(code) says an integer.
    size_t start = p->i;
    if (!jp_number(p, NULL)) return 0;
    a->code.len = 0;
    buf_put(&a->code, p->s + start, p->i - start < 32 ? p->i - start : 32);
    return 1;
  }
  if (strcmp(key, "message") == 0 && p->i < p->n && p->s[p->i] == '"') return a->message.len = 0, jp_string(p, &a->message, 4096);
  return -1;
}

static int result_member(void *ctx, const char *key, jp_t *p, int depth) {
  answer_t *a = ctx;
  (void)depth;
  if (strcmp(key, "block") == 0) {
    a->block = jp_literal(p, "true");
    return a->block ? 1 : -1;
  }
  if (strcmp(key, "reason") == 0 && p->i < p->n && p->s[p->i] == '"') {
    a->reason.len = 0;
    a->has_reason = 1;
    return jp_string(p, &a->reason, MAX_PAYLOAD_BYTES);
  }
  // A later "reason" that is no string wins, as JSON.parse keeps the last.
  if (strcmp(key, "reason") == 0) a->has_reason = 0;
  return -1;
}

static int answer_member(void *ctx, const char *key, jp_t *p, int depth) {
  answer_t *a = ctx;
  if (strcmp(key, "id") == 0 && p->i < p->n && (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))) return a->has_id = 1, jp_number(p, &a->id);
  if (strcmp(key, "error") == 0) {
    // As `if (msg.error)` reads it: null and false are no error.
    if (jp_literal(p, "null") || jp_literal(p, "false")) return a->has_error = 0, 1;
    a->has_error = 1;
    return p->i < p->n && p->s[p->i] == '{' ? jp_object(p, depth, a, error_member) : -1;
  }
  if (strcmp(key, "result") == 0) {
    a->block = 0;
    a->has_reason = 0;
    return p->i < p->n && p->s[p->i] == '{' ? jp_object(p, depth, a, result_member) : -1;
  }
  return -1;
}

static void answer_free(answer_t *a) {
  free(a->code.p);
  free(a->message.p);
  free(a->reason.p);
}

/**
 * Hello and one request, pipelined in one write (the hub answers a connection's requests in order);
 * then the answers, until the request's own. Returns 0 on every path: the agent goes on.
 */
static int ask(const char *socket_path, const buf_t *frames, const char *method, int is_stop) {
  int timeout_ms = is_stop ? STOP_ANSWER_MS : EVENT_ANSWER_MS;
  double deadline = monotonic_ms() + timeout_ms;
  struct sockaddr_un addr = {0};
  addr.sun_family = AF_UNIX;
  if (strlen(socket_path) >= sizeof addr.sun_path) return unreachable(socket_path, ENAMETOOLONG);
  memcpy(addr.sun_path, socket_path, strlen(socket_path));
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return unreachable(socket_path, errno);
  // A hub whose backlog is full makes connect and write wait: never past the answer's bound.
  struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
#ifdef SO_NOSIGPIPE
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
  int rc = 0;
  while (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    if (errno == EINTR) continue;
    rc = unreachable(socket_path, errno == EAGAIN || errno == EINPROGRESS ? ETIMEDOUT : errno);
    close(fd);
    return rc;
  }
  for (size_t sent = 0; sent < frames->len;) {
    ssize_t n = send(fd, frames->p + sent, frames->len - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      rc = unreachable(socket_path, n < 0 ? errno : EPIPE);
      close(fd);
      return rc;
    }
    sent += (size_t)n;
  }
  buf_t in = {0};
  size_t scanned = 0;
  for (;;) {
    // Every complete line first: the request's own answer ends the wait.
    char *nl;
    while (in.len > scanned && (nl = memchr(in.p + scanned, '\n', in.len - scanned)) != NULL) {
      size_t end = (size_t)(nl - in.p);
      answer_t a = {0};
      jp_t p = {(const unsigned char *)in.p + scanned, end - scanned, 0};
      int ok = jp_object(&p, 0, &a, answer_member) && skip_ws(p.s, p.n, p.i) == p.n && !a.code.failed && !a.message.failed && !a.reason.failed;
      scanned = end + 1;
      if (!ok) {
        answer_free(&a);
        close(fd);
        free(in.p);
        return fail("the hub answered with a line that is not JSON");
      }
      if (a.has_error) {
        fail("%s: %s", a.code.len ? a.code.p : "ERROR", a.message.len ? a.message.p : "");
        answer_free(&a);
        close(fd);
        free(in.p);
        return 0;
      }
      if (a.has_id && a.id == 2) {
        if (is_stop && a.block && a.has_reason) {
          buf_t out = {0};
          buf_puts(&out, "{\"decision\":\"block\",\"reason\":");
          json_string(&out, a.reason.p ? a.reason.p : "", a.reason.len);
          buf_puts(&out, "}\n");
          if (!out.failed) fwrite(out.p, 1, out.len, stdout);
          free(out.p);
        }
        answer_free(&a);
        close(fd);
        free(in.p);
        return 0;
      }
      answer_free(&a);
    }
    // Lines read are dropped; a line longer than the payload bound means something is wrong.
    if (scanned > 0) {
      memmove(in.p, in.p + scanned, in.len - scanned);
      in.len -= scanned;
      scanned = 0;
    }
    if (in.len > MAX_PAYLOAD_BYTES) {
      rc = fail("the hub answered with an oversized line");
      break;
    }
    int left = (int)(deadline - monotonic_ms());
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = left > 0 ? poll(&pfd, 1, left) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      fail("the hub at %s did not answer %s within %d s", socket_path, method, timeout_ms / 1000);
      break;
    }
    char chunk[65536];
    ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      rc = unreachable(socket_path, errno);
      break;
    }
    if (n == 0) {
      rc = fail("the hub at %s closed the connection before answering", socket_path);
      break;
    }
    buf_put(&in, chunk, (size_t)n);
    if (in.failed) {
      rc = fail("out of memory reading the hub's answer");
      break;
    }
  }
  close(fd);
  free(in.p);
  return rc;
}

int main(int argc, char **argv) {
  double started = started_at();
  if (argc < 3) {
    fprintf(stderr, "swb-hook: USAGE: swb-hook SWB-LAUNCHER <event> [payload-json]\n");
    return 2;
  }
  const char *launcher = argv[1];
  int rest = argc - 2;
  char **args = argv + 2;
  event_name = args[0];
  const char *session = getenv("SWB_SESSION"), *token = getenv("SWB_TOKEN"), *socket_path = getenv("SWB_SOCKET");
  int plain = rest <= 2 && known_event(event_name) && session && *session;
  for (int i = 0; i < rest; i++) plain = plain && args[i][0] != '-';
  buf_t agent_env = {0};
  // The node hook looks for the row's identity in the agent's environment as the ancestor walk's first
  // step; so does this program, before it hands over.
  if (plain && !(token && *token)) plain = identity_of_hook_parent(session, &agent_env, &token, &socket_path);
  plain = plain && token && *token && socket_path && *socket_path;
  if (!plain) {
    free(agent_env.p);
    return run_node_hook(launcher, rest, args);
  }
  signal(SIGPIPE, SIG_IGN);

  int is_stop = strcmp(event_name, "stop") == 0;
  buf_t payload = {0}, fields = {0};
  // Codex's notify program gets its event as an argument and no stdin: stdin is read only without one.
  if (rest == 2) buf_puts(&payload, args[1]);
  else read_payload(&payload);
  if (!is_stop && payload.len > 0) reduce_payload((const unsigned char *)payload.p, payload.len, &fields);

  char number[64];
  buf_t frames = {0};
  snprintf(number, sizeof number, "%d", PROTOCOL_VERSION);
  buf_puts(&frames, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"version\":");
  buf_puts(&frames, number);
  buf_puts(&frames, ",\"session\":");
  json_string(&frames, session, strlen(session));
  buf_puts(&frames, ",\"token\":");
  json_string(&frames, token, strlen(token));
  buf_puts(&frames, ",\"client\":\"hook\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":");
  const char *method = is_stop ? "hook.stop" : "hook.event";
  json_string(&frames, method, strlen(method));
  buf_puts(&frames, ",\"params\":{");
  if (!is_stop) {
    buf_puts(&frames, "\"event\":");
    json_string(&frames, event_name, strlen(event_name));
    buf_puts(&frames, ",");
  }
  buf_puts(&frames, "\"startedAt\":");
  snprintf(number, sizeof number, "%.3f", started);
  buf_puts(&frames, number);
  if (fields.len > 0) {
    buf_puts(&frames, ",\"payload\":");
    json_string(&frames, fields.p, fields.len);
  }
  buf_puts(&frames, "}}\n");
  int rc = frames.failed || payload.failed || fields.failed ? fail("out of memory writing the report") : ask(socket_path, &frames, method, is_stop);
  free(payload.p);
  free(fields.p);
  free(frames.p);
  free(agent_env.p);
  return rc;
}
