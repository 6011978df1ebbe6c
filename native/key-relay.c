// KeyRelay: a thread that carries the operator's keystrokes from their terminal to the attached
// row's pty, and the program's echo back onto the terminal, as tmux's server does in C, without
// waking the JavaScript event loop first.
//
// Under load the main thread is not the problem so much as everything it touches: a keystroke
// through libuv, a stream, the input router, the row and the pty writer runs cold after the other
// rows' parsing, ~100 us on these machines against tmux's ~70, and the echo's way back as long
// again (npm run bench:render -- --only=echo-under-load --sched). This thread does poll, read,
// write and nothing else: ~20 us a way.
//
// Keys: it only ever handles the plain case. A read holding any byte of `screened` (the first
// bytes of the detach keys), a pty that does not take the whole read, a pty that hangs up (the
// row's program is gone: the kernel would still take writes nobody reads), or the end of the
// terminal stops the thread with what it did not write held back, untouched, for JavaScript to
// route as before (take()). Every read it writes is counted; JavaScript hears of them
// NEWS_DELAY_MS after the first (at once for a hand-back), so the bookkeeping of a keystroke (who
// decides the row's size, when the operator last typed) follows without waking the event loop
// while the keystroke's echo is on its way.
//
// Echo: after a paint that left the terminal's cursor where the program has it, JavaScript arms
// the thread with the columns left on that line (arm()) and stops reading the row's output itself
// (src/rows/pty-output-loan.ts). The thread then reads that output; when it can only mean "print
// these characters here" (plain ASCII that fits: Compositor.echoAhead's rule) it writes it onto
// the terminal at once, and holds every read for JavaScript (output()), which records the echo in
// its painted snapshot and parses and paints as usual, so a wrong guess is put right by that paint.
// Any other output ends the arming. JavaScript disarms it before it writes to the terminal itself,
// and the disarm waits out a read or echo in flight, so the two never interleave. The lock guards
// only the state the two threads share: reads, writes and N-API calls happen outside it.
//
// Both descriptors are the relay's own duplicates, closed when it stops: the originals can be
// closed (a row that exits) without this thread ever reading or writing a number reused since.
//
//   const relay = new KeyRelay(notify)       notify(): called on the main thread when there is news
//   relay.start(ttyFd, ptyFd, screened)      screened: a 256-byte Uint8Array, 1 = hand back
//   relay.take() -> { typed, held, ended }   typed: reads written since the last take; held: the
//                                            read handed back (Buffer) or null; ended: null, 'EOF' or
//                                            an errno name (the terminal), or 'ROW_GONE' (the pty)
//   relay.arm(columns) -> bool               read the row's output on the thread, echo what fits
//   relay.output(disarm) -> { chunks, armed, rest }   what it read (chunks: [{ data, echoed }])
//   relay.stop()                             joins the thread (synchronous); take() after it
//   relay.close()                            stop, and let the process exit without it
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#define ADDON_NAME "key-relay"
#include "napi-call.h"
#include "errno-name.h"

#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_BYTES 4096
#define NEWS_DELAY_MS 20
/* The most an echo sent ahead may have (Compositor.echoAhead's ECHO_AHEAD_MAX), after its SGR reset. */
#define ECHO_MAX 64
#define SGR_RESET "\x1b[0m"
#define SGR_RESET_LEN 4
/* Reads held for JavaScript at most (then it re-arms once it has taken them). */
#define OUT_SLOTS 8
/* ended_errno beside the errnos: the pty hung up (the row's program is gone). */
#define ENDED_ROW_GONE (-2)
#define NOT_ENDED (-1)
/* What the wake-up pipe carries. */
#define WAKE_STOP 's'
#define WAKE_ARMED 'a'

typedef struct {
  int tty_fd;
  int pty_fd;
  /* The thread's wake-up pipe, polled beside the terminal: WAKE_STOP asks it to end, WAKE_ARMED to
     poll the pty too (it was armed). */
  int wake_read;
  int wake_write;
  uint8_t screened[256];
  pthread_t thread;
  bool running;
  /* Guards the shared state below, and only that: nothing reads, writes or calls N-API under it. */
  pthread_mutex_t lock;
  /* Under lock: the news for JavaScript. */
  uint32_t typed;
  uint8_t held[READ_BYTES];
  size_t held_len;
  bool has_held;
  int ended_errno; /* NOT_ENDED, ENDED_ROW_GONE, 0 (the terminal's end of file) or the errno it failed with */
  /* Under lock: the echo ahead. Armed by JavaScript after a paint that left the terminal's cursor
     where the row's program has it, with `columns` left on its line; the thread then reads the
     row's next output itself (JavaScript's stream has stopped reading it) and, when it can only
     mean "print these characters here", writes it to the terminal before handing it over. */
  bool armed;
  uint32_t columns;
  /* What it read, oldest first, until JavaScript takes it; while each read was an echo that fit,
     it stays armed (a typist's next key needs no new paint first), with the columns left. */
  struct {
    uint8_t data[READ_BYTES];
    size_t len;
    bool echoed;
  } out[OUT_SLOTS];
  size_t out_count;
  /* Under lock: the thread is reading the row's output or writing its echo (outside the lock).
     arm() and output() wait for `io_done` while it is, so that once output(disarm) returns the
     thread neither reads the pty nor writes the terminal again (JavaScript writes it next), and
     each sees the read's effect on the arming, as if the I/O had been done under the lock. */
  bool echo_io;
  pthread_cond_t io_done;
  /* What of an echo the terminal did not take at once (JavaScript writes it before anything else;
     nothing more is echoed meanwhile). */
  uint8_t echo_rest[SGR_RESET_LEN + ECHO_MAX];
  size_t echo_rest_len;
  /* The main thread's own: output() copies the held reads here under the lock, then makes Buffers
     of them outside it. */
  struct {
    uint8_t data[READ_BYTES];
    size_t len;
    bool echoed;
  } taken[OUT_SLOTS];
  atomic_bool notify_pending;
  napi_threadsafe_function tsfn;
  bool tsfn_gone; /* its finalizer ran (a release, or the environment's teardown) */
  bool closed;
  int refs; /* the JavaScript object and the notification each hold the struct */
} Relay;

static void notify(Relay *r) {
  if (atomic_exchange(&r->notify_pending, true)) return;
  napi_call_threadsafe_function(r->tsfn, NULL, napi_tsfn_nonblocking);
}

/* The thread's last act: what it did not write, for take(). */
static void hand_back(Relay *r, const uint8_t *data, size_t len, int ended_errno) {
  pthread_mutex_lock(&r->lock);
  if (len > 0) {
    memcpy(r->held, data, len);
    r->held_len = len;
    r->has_held = true;
  }
  if (ended_errno != NOT_ENDED) r->ended_errno = ended_errno;
  pthread_mutex_unlock(&r->lock);
  notify(r);
}

static int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Drains the wake-up pipe: true when a stop is among what was sent (else it was armed: poll anew). */
static bool wake_says_stop(Relay *r) {
  char cmd[16];
  bool stop = false;
  ssize_t n;
  while ((n = read(r->wake_read, cmd, sizeof cmd)) > 0) {
    for (ssize_t i = 0; i < n; i++) stop = stop || cmd[i] == WAKE_STOP;
  }
  return stop;
}

static void wake(Relay *r, char why) {
  while (write(r->wake_write, &why, 1) < 0 && errno == EINTR) {
  }
}

/* Whether the row's output can only mean "print these characters here": plain ASCII, few of them. */
static bool echoable(const uint8_t *data, size_t len, uint32_t columns) {
  if (len == 0 || len > ECHO_MAX || len >= columns) return false;
  for (size_t i = 0; i < len; i++) {
    if (data[i] < 0x20 || data[i] > 0x7e) return false;
  }
  return true;
}

/* The row's output, read while armed: echoed ahead when it can only be printed at the cursor, and
   held for JavaScript either way. Anything else, or a full hold, ends the arming. The read and the
   echo happen outside the lock, with `echo_io` set (see there). */
static void read_output(Relay *r) {
  pthread_mutex_lock(&r->lock);
  if (!r->armed || r->out_count == OUT_SLOTS) {
    pthread_mutex_unlock(&r->lock);
    return;
  }
  uint32_t columns = r->columns;
  /* The next slot is the thread's while echo_io is set: output() waits before it touches any. */
  __typeof__(r->out[0]) *slot = &r->out[r->out_count];
  uint8_t *data = slot->data;
  r->echo_io = true;
  pthread_mutex_unlock(&r->lock);

  ssize_t got = read(r->pty_fd, data, sizeof slot->data);
  bool again = got < 0 && (errno == EAGAIN || errno == EINTR);
  uint8_t echo[SGR_RESET_LEN + ECHO_MAX];
  size_t total = 0;
  ssize_t w = 0;
  if (got > 0 && echoable(data, (size_t)got, columns)) {
    memcpy(echo, SGR_RESET, SGR_RESET_LEN);
    memcpy(echo + SGR_RESET_LEN, data, (size_t)got);
    total = SGR_RESET_LEN + (size_t)got;
    do w = write(r->tty_fd, echo, total);
    while (w < 0 && errno == EINTR);
  }

  pthread_mutex_lock(&r->lock);
  r->echo_io = false;
  pthread_cond_broadcast(&r->io_done);
  if (again) {
    pthread_mutex_unlock(&r->lock);
    return;
  }
  if (got <= 0) {
    /* End of file or an error (EIO: the program's side is closed): JavaScript's stream meets it. */
    r->armed = false;
    pthread_mutex_unlock(&r->lock);
    notify(r);
    return;
  }
  r->out_count++;
  slot->len = (size_t)got;
  slot->echoed = w > 0;
  bool keep = false;
  if (w > 0) {
    r->columns -= (uint32_t)got;
    r->echo_rest_len = total - (size_t)w;
    memcpy(r->echo_rest, echo + w, r->echo_rest_len);
    keep = r->echo_rest_len == 0;
  }
  if (!keep || r->out_count == OUT_SLOTS) r->armed = false;
  pthread_mutex_unlock(&r->lock);
  notify(r);
}

static void *relay_main(void *arg) {
  Relay *r = (Relay *)arg;
  uint8_t buf[READ_BYTES];
  /* When JavaScript hears of the keys written since it last did (0: none waiting). */
  int64_t news_at = 0;
  for (;;) {
    /* The pty is watched for its hang-up (the row's program and all it started are gone: the
       kernel still takes writes there, which nobody would ever read), and read while armed. */
    pthread_mutex_lock(&r->lock);
    short pty_events = r->armed ? POLLIN : 0;
    pthread_mutex_unlock(&r->lock);
    struct pollfd p[3] = {{r->tty_fd, POLLIN, 0}, {r->wake_read, POLLIN, 0}, {r->pty_fd, pty_events, 0}};
    int timeout = -1;
    if (news_at != 0) {
      int64_t left = news_at - now_ms();
      timeout = left > 0 ? (int)left : 0;
    }
    int n = poll(p, 3, timeout);
    if (n < 0 && errno != EINTR) {
      hand_back(r, NULL, 0, errno);
      return NULL;
    }
    if (n > 0 && p[1].revents && wake_says_stop(r)) return NULL;
    if (n > 0 && (p[2].revents & (POLLHUP | POLLERR | POLLNVAL))) {
      hand_back(r, NULL, 0, ENDED_ROW_GONE);
      return NULL;
    }
    if (n > 0 && (p[2].revents & POLLIN)) read_output(r);
    if (news_at != 0 && now_ms() >= news_at) {
      news_at = 0;
      notify(r);
    }
    if (n <= 0 || !p[0].revents) continue;
    ssize_t got = read(r->tty_fd, buf, sizeof buf);
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (got <= 0) {
      hand_back(r, NULL, 0, got == 0 ? 0 : errno);
      return NULL;
    }
    bool plain = true;
    for (ssize_t i = 0; i < got && plain; i++) plain = r->screened[buf[i]] == 0;
    if (!plain) {
      hand_back(r, buf, (size_t)got, NOT_ENDED);
      return NULL;
    }
    ssize_t put = 0;
    while (put < got) {
      ssize_t w = write(r->pty_fd, buf + put, (size_t)(got - put));
      if (w > 0) put += w;
      else if (w < 0 && errno == EINTR) continue;
      else break;
    }
    if (put > 0) {
      pthread_mutex_lock(&r->lock);
      r->typed++;
      pthread_mutex_unlock(&r->lock);
      if (news_at == 0) news_at = now_ms() + NEWS_DELAY_MS;
    }
    if (put < got) {
      /* The pty is full (the rest waits in JavaScript's queue, and every later key behind it), or
         its program is gone (JavaScript knows whether the row restarted or ended). */
      hand_back(r, buf + put, (size_t)(got - put), NOT_ENDED);
      return NULL;
    }
  }
}

static void close_fds(Relay *r) {
  int *fds[] = {&r->tty_fd, &r->pty_fd, &r->wake_read, &r->wake_write};
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
    if (*fds[i] >= 0) close(*fds[i]);
    *fds[i] = -1;
  }
}

static void stop_thread(Relay *r) {
  if (!r->running) return;
  wake(r, WAKE_STOP);
  pthread_join(r->thread, NULL);
  r->running = false;
  close_fds(r);
}

static void call_js(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)context;
  (void)data;
  if (env == NULL || js_cb == NULL) return;
  napi_value undefined;
  if (napi_get_undefined(env, &undefined) != napi_ok) return;
  napi_call_function(env, undefined, js_cb, 0, NULL, NULL);
}

static Relay *unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok) return NULL;
  Relay *r = NULL;
  if (napi_unwrap(env, self, (void **)&r) != napi_ok || r == NULL) {
    napi_throw_error(env, NULL, "key-relay: not a KeyRelay");
    return NULL;
  }
  return r;
}

static napi_value throw_errno(napi_env env, const char *what, int e) {
  char message[160];
  snprintf(message, sizeof message, "key-relay: %s: %s", what, strerror(e));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static napi_value relay_start(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  Relay *r = unwrap(env, info, &argc, argv);
  if (r == NULL) return NULL;
  if (r->closed) {
    napi_throw_error(env, NULL, "key-relay: closed");
    return NULL;
  }
  if (r->running) {
    napi_throw_error(env, NULL, "key-relay: already running");
    return NULL;
  }
  int32_t tty_fd, pty_fd;
  NAPI_CALL(env, napi_get_value_int32(env, argv[0], &tty_fd));
  NAPI_CALL(env, napi_get_value_int32(env, argv[1], &pty_fd));
  void *table;
  size_t table_len;
  napi_typedarray_type type;
  NAPI_CALL(env, napi_get_typedarray_info(env, argv[2], &type, &table_len, &table, NULL, NULL));
  if (type != napi_uint8_array || table_len != 256) {
    napi_throw_type_error(env, NULL, "key-relay: screened must be a Uint8Array of 256");
    return NULL;
  }
  memcpy(r->screened, table, 256);
  int fds[2];
  r->tty_fd = fcntl(tty_fd, F_DUPFD_CLOEXEC, 3);
  if (r->tty_fd < 0) return throw_errno(env, "dup terminal", errno);
  r->pty_fd = fcntl(pty_fd, F_DUPFD_CLOEXEC, 3);
  if (r->pty_fd < 0) {
    int e = errno;
    close_fds(r);
    return throw_errno(env, "dup pty", e);
  }
  // Both are non-blocking already (libuv's terminal, node-pty's master); made sure of here, since a
  // write that blocked would hold the thread, and stop() with it, until the program read its input.
  int set_flags[] = {r->tty_fd, r->pty_fd};
  for (size_t i = 0; i < 2; i++) {
    int flags = fcntl(set_flags[i], F_GETFL);
    if (flags < 0 || (!(flags & O_NONBLOCK) && fcntl(set_flags[i], F_SETFL, flags | O_NONBLOCK) != 0)) {
      int e = errno;
      close_fds(r);
      return throw_errno(env, "non-blocking", e);
    }
  }
  struct pollfd hup = {r->pty_fd, 0, 0};
  if (poll(&hup, 1, 0) != 0) {
    close_fds(r);
    napi_throw_error(env, "ROW_GONE", "key-relay: the row's program is gone (its pty hung up)");
    return NULL;
  }
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    int e = errno;
    close_fds(r);
    return throw_errno(env, "pipe", e);
  }
  r->wake_read = fds[0];
  r->wake_write = fds[1];
  pthread_mutex_lock(&r->lock);
  r->has_held = false;
  r->held_len = 0;
  r->ended_errno = NOT_ENDED;
  r->armed = false;
  r->out_count = 0;
  r->echo_rest_len = 0;
  r->echo_io = false;
  pthread_mutex_unlock(&r->lock);
  int e = pthread_create(&r->thread, NULL, relay_main, r);
  if (e != 0) {
    close_fds(r);
    return throw_errno(env, "thread", e);
  }
  r->running = true;
  return NULL;
}

/* arm(columns) -> bool: read the row's next output on the thread, and echo it ahead if it can only be
   printed at the cursor with `columns` left on its line. False when not running, or when output it
   read waits for JavaScript (output() first). */
static napi_value relay_arm(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  Relay *r = unwrap(env, info, &argc, argv);
  if (r == NULL) return NULL;
  uint32_t columns;
  NAPI_CALL(env, napi_get_value_uint32(env, argv[0], &columns));
  bool armed = false;
  if (r->running) {
    pthread_mutex_lock(&r->lock);
    while (r->echo_io) pthread_cond_wait(&r->io_done, &r->lock);
    if (r->out_count == 0) {
      r->armed = true;
      r->columns = columns;
      armed = true;
    }
    pthread_mutex_unlock(&r->lock);
  }
  if (armed) wake(r, WAKE_ARMED); // to poll the pty too
  napi_value v;
  NAPI_CALL(env, napi_get_boolean(env, armed, &v));
  return v;
}

/* output(disarm) -> { chunks, armed, rest }: the output the thread read while armed, oldest first
   (chunks: [{ data, echoed }], echoed: it went to the terminal ahead), whether it is armed still,
   and the part of an echo the terminal has not taken yet (written before anything else), or null.
   With disarm, the thread reads no more. */
/* A Buffer holding a copy of `len` bytes of `data`, or null when there are none. */
static napi_status buffer_or_null(napi_env env, const uint8_t *data, size_t len, napi_value *result) {
  if (len == 0) return napi_get_null(env, result);
  void *copy;
  return napi_create_buffer_copy(env, len, data, &copy, result);
}

static napi_value relay_output(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  Relay *r = unwrap(env, info, &argc, argv);
  if (r == NULL) return NULL;
  bool disarm = false;
  NAPI_CALL(env, napi_get_value_bool(env, argv[0], &disarm));
  uint8_t rest[SGR_RESET_LEN + ECHO_MAX];
  pthread_mutex_lock(&r->lock);
  while (r->echo_io) pthread_cond_wait(&r->io_done, &r->lock);
  if (disarm) r->armed = false;
  bool armed = r->armed;
  size_t count = r->out_count;
  for (size_t i = 0; i < count; i++) {
    r->taken[i].len = r->out[i].len;
    r->taken[i].echoed = r->out[i].echoed;
    memcpy(r->taken[i].data, r->out[i].data, r->out[i].len);
  }
  r->out_count = 0;
  size_t rest_len = r->echo_rest_len;
  memcpy(rest, r->echo_rest, rest_len);
  r->echo_rest_len = 0;
  pthread_mutex_unlock(&r->lock);

  napi_value out, chunks, v;
  NAPI_CALL(env, napi_create_object(env, &out));
  NAPI_CALL(env, napi_create_array(env, &chunks));
  for (size_t i = 0; i < count; i++) {
    napi_value chunk;
    void *copy;
    NAPI_CALL(env, napi_create_object(env, &chunk));
    NAPI_CALL(env, napi_create_buffer_copy(env, r->taken[i].len, r->taken[i].data, &copy, &v));
    NAPI_CALL(env, napi_set_named_property(env, chunk, "data", v));
    NAPI_CALL(env, napi_get_boolean(env, r->taken[i].echoed, &v));
    NAPI_CALL(env, napi_set_named_property(env, chunk, "echoed", v));
    NAPI_CALL(env, napi_set_element(env, chunks, (uint32_t)i, chunk));
  }
  NAPI_CALL(env, napi_set_named_property(env, out, "chunks", chunks));
  NAPI_CALL(env, napi_get_boolean(env, armed, &v));
  NAPI_CALL(env, napi_set_named_property(env, out, "armed", v));
  NAPI_CALL(env, buffer_or_null(env, rest, rest_len, &v));
  NAPI_CALL(env, napi_set_named_property(env, out, "rest", v));
  return out;
}

static napi_value relay_stop(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Relay *r = unwrap(env, info, &argc, NULL);
  if (r == NULL) return NULL;
  stop_thread(r);
  return NULL;
}

static napi_value relay_take(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Relay *r = unwrap(env, info, &argc, NULL);
  if (r == NULL) return NULL;
  // Cleared before the news is read: news that comes after is notified again.
  atomic_store(&r->notify_pending, false);
  pthread_mutex_lock(&r->lock);
  uint32_t typed = r->typed;
  r->typed = 0;
  bool has_held = r->has_held;
  size_t held_len = r->held_len;
  uint8_t held[READ_BYTES];
  if (has_held) memcpy(held, r->held, held_len);
  r->has_held = false;
  r->held_len = 0;
  int ended = r->ended_errno;
  r->ended_errno = NOT_ENDED;
  pthread_mutex_unlock(&r->lock);

  napi_value out, v;
  NAPI_CALL(env, napi_create_object(env, &out));
  NAPI_CALL(env, napi_create_uint32(env, typed, &v));
  NAPI_CALL(env, napi_set_named_property(env, out, "typed", v));
  NAPI_CALL(env, buffer_or_null(env, held, has_held ? held_len : 0, &v));
  NAPI_CALL(env, napi_set_named_property(env, out, "held", v));
  if (ended == NOT_ENDED) {
    NAPI_CALL(env, napi_get_null(env, &v));
  } else {
    const char *why = ended == ENDED_ROW_GONE ? "ROW_GONE" : ended == 0 ? "EOF" : errno_name(ended);
    NAPI_CALL(env, napi_create_string_utf8(env, why, NAPI_AUTO_LENGTH, &v));
  }
  NAPI_CALL(env, napi_set_named_property(env, out, "ended", v));
  return out;
}

static void unref(Relay *r) {
  if (--r->refs > 0) return;
  pthread_cond_destroy(&r->io_done);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

static void release(Relay *r) {
  if (r->closed) return;
  stop_thread(r);
  r->closed = true;
  if (!r->tsfn_gone) napi_release_threadsafe_function(r->tsfn, napi_tsfn_abort);
}

static napi_value relay_close(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Relay *r = unwrap(env, info, &argc, NULL);
  if (r == NULL) return NULL;
  release(r);
  return NULL;
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Relay *r = (Relay *)data;
  release(r);
  unref(r);
}

static void tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Relay *r = (Relay *)data;
  r->tsfn_gone = true;
  unref(r);
}

static napi_value relay_new(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  napi_valuetype t;
  NAPI_CALL(env, napi_typeof(env, argv[0], &t));
  if (argc < 1 || t != napi_function) {
    napi_throw_type_error(env, NULL, "key-relay: new KeyRelay(notify) needs a function");
    return NULL;
  }
  Relay *r = calloc(1, sizeof *r);
  if (r == NULL) {
    napi_throw_error(env, NULL, "key-relay: out of memory");
    return NULL;
  }
  r->tty_fd = r->pty_fd = r->wake_read = r->wake_write = -1;
  r->ended_errno = NOT_ENDED;
  r->refs = 1;
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->io_done, NULL);
  napi_value name;
  if (napi_create_string_utf8(env, "swb-key-relay", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, r, tsfn_finalize, NULL, call_js, &r->tsfn) != napi_ok) {
    unref(r);
    napi_throw_error(env, NULL, "key-relay: cannot create its notification");
    return NULL;
  }
  r->refs++;
  // The relay never keeps the process alive by itself: its owner stops it.
  napi_unref_threadsafe_function(env, r->tsfn);
  if (napi_wrap(env, self, r, finalize, NULL, NULL) != napi_ok) {
    release(r);
    unref(r);
    napi_throw_error(env, NULL, "key-relay: wrap failed");
    return NULL;
  }
  return self;
}

#endif /* __linux__ */

static napi_value init(napi_env env, napi_value exports) {
#if defined(__linux__)
  napi_property_descriptor methods[] = {
      {"start", NULL, relay_start, NULL, NULL, NULL, napi_default, NULL},
      {"stop", NULL, relay_stop, NULL, NULL, NULL, napi_default, NULL},
      {"take", NULL, relay_take, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, relay_close, NULL, NULL, NULL, napi_default, NULL},
      {"arm", NULL, relay_arm, NULL, NULL, NULL, napi_default, NULL},
      {"output", NULL, relay_output, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls;
  NAPI_CALL(env, napi_define_class(env, "KeyRelay", NAPI_AUTO_LENGTH, relay_new, NULL, sizeof methods / sizeof methods[0], methods, &cls));
  NAPI_CALL(env, napi_set_named_property(env, exports, "KeyRelay", cls));
#else
  (void)env;
#endif
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
