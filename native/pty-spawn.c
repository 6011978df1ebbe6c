// fork(file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onexit) -> { fd, pid, pty } | null:
// node-pty 1.1.0's native fork on Linux, with the child started by posix_spawn instead of
// forkpty(3) + execvp (issue #33, cold start).
//
// Why: fork() copies the page tables of the ~80 MB server, 8-16 ms a row here, and a first frame
// starts eight rows or more. glibc's posix_spawn clones with CLONE_VM|CLONE_VFORK: no copy, ~1-4 ms.
// src/rows/pty-spawn-strategy.ts puts this function in place of node-pty's own on the object
// node-pty's unixTerminal.js calls, so node-pty's JavaScript (its stream, resize, kill, exit) runs
// unchanged on what this returns.
//
// The same pty as node-pty's: a master from /dev/ptmx, the termios and window size its PtyFork
// sets, applied on the slave before the child starts. The child: a new session
// (POSIX_SPAWN_SETSID) that opens the slave as fd 0 without O_NOCTTY, which makes it the session's
// controlling terminal (forkpty's login_tty does the same with TIOCSCTTY), dup'd to 1 and 2; every
// signal at its default and none blocked (node-pty resets the handlers by hand; glibc leaves its two
// reserved signals, 32 and 33, ignored, which no glibc program can handle or send); the cwd; and no
// other descriptor (node-pty leaves every earlier row's master open in each child; closefrom(3)).
// The program is found on the CHILD's PATH as execvp does after node-pty sets environ to the
// child's env.
//
// null, and no child, whenever this cannot do what node-pty would (uid/gid given, a program not
// found or not executable, a script without #!, too many or too long arguments, no pty): the
// caller then runs node-pty's own fork, so a missing command fails exactly as before.
//
// Exit: a small detached thread per child blocks in waitpid(pid) — that pid only, never another
// process's child — and hands (exitCode, signal), computed as node-pty's SetupExitCallback does,
// to onexit on the JavaScript thread once, through a thread-safe function. Like node-pty's, that
// function keeps the event loop alive while the child runs.
//
// Linux with glibc 2.34 or later only (posix_spawn_file_actions_addclosefrom_np); elsewhere the
// addon builds and exports nothing, and node-pty's fork is used.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#define ADDON_NAME "pty-spawn"
#include "napi-call.h"

#if defined(__linux__)
#include <features.h>
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
#define PS_SUPPORTED 1
#endif
#endif

#ifdef PS_SUPPORTED
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Bounds on what is copied out of JavaScript (beyond them: node-pty's fork, which has none). */
#define MAX_WORDS 65536
#define MAX_STRING_BYTES (1024 * 1024)
/* glibc's execvp without PATH (confstr _CS_PATH). */
#define DEFAULT_PATH "/bin:/usr/bin"
/* The exit watcher only waits and calls back. */
#define WATCH_STACK_BYTES (128 * 1024)

/* One child's exit watch, shared by its thread and the thread-safe function's finalizer (which
   runs when the function is done with, or when the environment goes away first: a worker's end).
   The thread calls the function only while it exists. */
typedef struct {
  pid_t pid;
  napi_threadsafe_function tsfn;
  pthread_mutex_t lock;
  bool tsfn_gone; /* under lock */
  int refs;       /* under lock: the thread and the finalizer */
} Watch;

static void watch_unref(Watch *w) {
  pthread_mutex_lock(&w->lock);
  bool last = --w->refs == 0;
  pthread_mutex_unlock(&w->lock);
  if (last) {
    pthread_mutex_destroy(&w->lock);
    free(w);
  }
}

static void watch_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Watch *w = data;
  pthread_mutex_lock(&w->lock);
  w->tsfn_gone = true;
  pthread_mutex_unlock(&w->lock);
  watch_unref(w);
}

/* What the thread hands to the JavaScript thread: the exit code (0-255) and signal, in the pointer itself. */
#define EXIT_NEWS(code, signal) ((void *)(intptr_t)(((code) & 0xff) | ((signal) << 8)))
#define NEWS_CODE(news) ((int)((intptr_t)(news) & 0xff))
#define NEWS_SIGNAL(news) ((int)((intptr_t)(news) >> 8))

static void free_words(char **words, size_t count) {
  if (words == NULL) return;
  for (size_t i = 0; i < count; i++) free(words[i]);
  free(words);
}

/* A JavaScript string as a malloc'd C string, or NULL (not a string, too long, out of memory). */
static char *string_of(napi_env env, napi_value value) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &len) != napi_ok || len > MAX_STRING_BYTES) return NULL;
  char *s = malloc(len + 1);
  if (s == NULL) return NULL;
  if (napi_get_value_string_utf8(env, value, s, len + 1, &len) != napi_ok) {
    free(s);
    return NULL;
  }
  return s;
}

/* A JavaScript array of strings as a NULL-terminated array, `first` (if any) in front; NULL when it cannot be copied. */
static char **words_of(napi_env env, napi_value array, const char *first, size_t *count) {
  uint32_t n = 0;
  if (napi_get_array_length(env, array, &n) != napi_ok || n > MAX_WORDS) return NULL;
  size_t offset = first != NULL ? 1 : 0;
  char **words = calloc((size_t)n + offset + 1, sizeof(char *));
  if (words == NULL) return NULL;
  *count = 0;
  if (first != NULL) {
    if ((words[0] = strdup(first)) == NULL) return free(words), NULL;
    *count = 1;
  }
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    if (napi_get_element(env, array, i, &item) != napi_ok || (words[offset + i] = string_of(env, item)) == NULL) {
      free_words(words, *count);
      return NULL;
    }
    *count = offset + i + 1;
  }
  return words;
}

/* Whether execve would run `path` (checked from `cwd` when relative): a regular file we may execute.
   *stop is set when execvp would give up there rather than try the next PATH entry. */
static bool runnable(const char *path, const char *cwd, bool *stop) {
  char joined[PATH_MAX];
  const char *check = path;
  if (path[0] != '/' && cwd[0] != '\0') {
    int n = snprintf(joined, sizeof joined, "%s/%s", cwd, path);
    if (n < 0 || (size_t)n >= sizeof joined) return *stop = true, false;
    check = joined;
  }
  struct stat st;
  int e;
  if (stat(check, &st) != 0) e = errno;
  else if (!S_ISREG(st.st_mode)) e = EACCES; /* what execve says of a directory */
  else if (access(check, X_OK) != 0) e = errno;
  else return true;
  /* The errors glibc's execvpe passes over to the next entry; any other ends its search. */
  *stop = !(e == EACCES || e == ENOENT || e == ESTALE || e == ENOTDIR || e == ENODEV || e == ETIMEDOUT);
  return false;
}

/* The path execvp would run for `file` with the child's env, or NULL (then node-pty's fork decides). */
static char *resolve_program(const char *file, char *const *env, const char *cwd) {
  if (strchr(file, '/') != NULL) return strdup(file); /* as is; posix_spawn reports ENOENT/EACCES itself */
  /* execvp's own refusals: ENOENT, ENAMETOOLONG. */
  if (file[0] == '\0' || strlen(file) > NAME_MAX) return NULL;
  const char *path = NULL;
  for (char *const *e = env; *e != NULL; e++) {
    if (strncmp(*e, "PATH=", 5) == 0) {
      path = *e + 5;
      break;
    }
  }
  if (path == NULL) path = DEFAULT_PATH;
  size_t file_len = strlen(file);
  for (const char *p = path;;) {
    const char *end = strchrnul(p, ':');
    size_t dir_len = (size_t)(end - p);
    /* An empty entry is the current directory: execvp tries the bare name. */
    size_t len = dir_len + (dir_len > 0 ? 1 : 0) + file_len;
    if (len < PATH_MAX) {
      char *candidate = malloc(len + 1);
      if (candidate == NULL) return NULL;
      memcpy(candidate, p, dir_len);
      if (dir_len > 0) candidate[dir_len] = '/';
      memcpy(candidate + len - file_len, file, file_len + 1);
      bool stop = false;
      if (runnable(candidate, cwd, &stop)) return candidate;
      free(candidate);
      if (stop) return NULL;
    }
    if (*end == '\0') return NULL;
    p = end + 1;
  }
}

/* node-pty's PtyFork control characters (pty.cc), Linux branch: ^D, no EOL/EOL2, DEL, ^W, ^U,
   ^R, ^C, ^\, ^Z, ^Q, ^S, ^V, ^O; reads return at 1 byte with no timer. */
static const struct {
  int index;
  cc_t value;
} CONTROL_CHARS[] = {
    {VEOF, 4},      {VEOL, (cc_t)-1}, {VEOL2, (cc_t)-1}, {VERASE, 0x7f}, {VWERASE, 23}, {VKILL, 21},   {VREPRINT, 18}, {VINTR, 3},
    {VQUIT, 0x1c},  {VSUSP, 26},      {VSTART, 17},      {VSTOP, 19},    {VLNEXT, 22},  {VDISCARD, 15}, {VMIN, 1},      {VTIME, 0},
};

/* node-pty's PtyFork termios (pty.cc), Linux branch. */
static void node_pty_termios(struct termios *t, bool utf8) {
  memset(t, 0, sizeof *t);
  t->c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT;
  if (utf8) t->c_iflag |= IUTF8;
  t->c_oflag = OPOST | ONLCR;
  t->c_cflag = CREAD | CS8 | HUPCL;
  t->c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  for (size_t i = 0; i < sizeof CONTROL_CHARS / sizeof CONTROL_CHARS[0]; i++) t->c_cc[CONTROL_CHARS[i].index] = CONTROL_CHARS[i].value;
  cfsetispeed(t, B38400);
  cfsetospeed(t, B38400);
}

/* A master (non-blocking, close-on-exec) and its slave's path, the slave set up as node-pty's; -1 on failure. */
static int open_master(const struct termios *t, const struct winsize *size, char *slave_path, size_t path_size, int *slave) {
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (master < 0) return -1;
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, slave_path, path_size) != 0) goto fail;
  /* Held open (not as our controlling terminal) until the child has opened it, so the settings
     are those of a slave in use, as forkpty's. */
  *slave = open(slave_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (*slave < 0) goto fail;
  if (tcsetattr(*slave, TCSAFLUSH, t) != 0 || ioctl(*slave, TIOCSWINSZ, size) != 0) {
    close(*slave);
    goto fail;
  }
  return master;
fail:
  close(master);
  return -1;
}

/* The child, or -1 with nothing started. */
static pid_t spawn_child(const char *program, char *const *argv, char *const *env, const char *cwd, const char *slave_path) {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  if (posix_spawnattr_init(&attr) != 0) return -1;
  if (posix_spawn_file_actions_init(&actions) != 0) {
    posix_spawnattr_destroy(&attr);
    return -1;
  }
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  pid_t pid = -1;
  int failed = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) ||
               posix_spawnattr_setsigdefault(&attr, &all) || posix_spawnattr_setsigmask(&attr, &none) ||
               /* Not O_NOCTTY: the new session's leader opening a tty takes it as its controlling terminal. */
               posix_spawn_file_actions_addopen(&actions, 0, slave_path, O_RDWR, 0) ||
               posix_spawn_file_actions_adddup2(&actions, 0, 1) || posix_spawn_file_actions_adddup2(&actions, 0, 2) ||
               (cwd[0] != '\0' && posix_spawn_file_actions_addchdir_np(&actions, cwd)) ||
               posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  if (!failed && posix_spawn(&pid, program, &actions, &attr, argv, env) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return pid;
}

/* On the JavaScript thread, once per child (env NULL when the environment is going away). */
static void call_onexit(napi_env env, napi_value onexit, void *context, void *news) {
  (void)context;
  if (env == NULL || onexit == NULL) return;
  napi_value argv[2], recv;
  if (napi_create_int32(env, NEWS_CODE(news), &argv[0]) == napi_ok && napi_create_int32(env, NEWS_SIGNAL(news), &argv[1]) == napi_ok &&
      napi_get_undefined(env, &recv) == napi_ok) {
    /* An exception thrown by onexit is Node's to report as uncaught, as for node-pty's. */
    napi_call_function(env, recv, onexit, 2, argv, NULL);
  }
}

static void *watch_main(void *arg) {
  Watch *w = arg;
  int status = 0;
  pid_t got;
  do got = waitpid(w->pid, &status, 0);
  while (got < 0 && errno == EINTR);
  /* ECHILD (someone else reaped it): 0 and 0, as node-pty goes on with no status then. */
  if (got != w->pid) status = 0;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  int signal_code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  pthread_mutex_lock(&w->lock);
  /* Non-blocking: the queue is unbounded, and the finalizer waits for this lock. */
  if (!w->tsfn_gone && napi_call_threadsafe_function(w->tsfn, EXIT_NEWS(code, signal_code), napi_tsfn_nonblocking) == napi_ok) {
    napi_release_threadsafe_function(w->tsfn, napi_tsfn_release);
  }
  pthread_mutex_unlock(&w->lock);
  watch_unref(w);
  return NULL;
}

static bool start_watch(Watch *w) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, WATCH_STACK_BYTES);
  /* The thread takes no signal meant for the process. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  int e = pthread_create(&thread, &attr, watch_main, w);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  return e == 0;
}

/* { fd, pid, pty }, as node-pty's fork returns. */
static napi_value result_of(napi_env env, int master, pid_t pid, const char *slave_path) {
  napi_value result, fd_value, pid_value, pty_value;
  NAPI_CALL(env, napi_create_int32(env, master, &fd_value));
  NAPI_CALL(env, napi_create_int32(env, pid, &pid_value));
  NAPI_CALL(env, napi_create_string_utf8(env, slave_path, NAPI_AUTO_LENGTH, &pty_value));
  napi_property_descriptor fields[] = {
      {"fd", NULL, NULL, NULL, NULL, fd_value, napi_default_jsproperty, NULL},
      {"pid", NULL, NULL, NULL, NULL, pid_value, napi_default_jsproperty, NULL},
      {"pty", NULL, NULL, NULL, NULL, pty_value, napi_default_jsproperty, NULL},
  };
  NAPI_CALL(env, napi_create_object(env, &result));
  NAPI_CALL(env, napi_define_properties(env, result, 3, fields));
  return result;
}

static napi_value fallback(napi_env env) {
  napi_value v;
  NAPI_CALL(env, napi_get_null(env, &v));
  return v;
}

static bool is(napi_env env, napi_value v, napi_valuetype want) {
  napi_valuetype t;
  return napi_typeof(env, v, &t) == napi_ok && t == want;
}

static napi_value pty_fork(napi_env env, napi_callback_info info) {
  size_t argc = 12;
  napi_value a[12];
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, a, NULL, NULL));
  bool arrays[2] = {false, false};
  if (argc == 11) {
    napi_is_array(env, a[1], &arrays[0]);
    napi_is_array(env, a[2], &arrays[1]);
  }
  if (argc != 11 || !is(env, a[0], napi_string) || !arrays[0] || !arrays[1] || !is(env, a[3], napi_string) ||
      !is(env, a[4], napi_number) || !is(env, a[5], napi_number) || !is(env, a[6], napi_number) || !is(env, a[7], napi_number) ||
      !is(env, a[8], napi_boolean) || !is(env, a[9], napi_string) || !is(env, a[10], napi_function)) {
    /* node-pty's own words for the same mistake. */
    napi_throw_error(env, NULL, "Usage: pty.fork(file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onexit)");
    return NULL;
  }
  int32_t cols, rows, uid, gid;
  bool utf8;
  NAPI_CALL(env, napi_get_value_int32(env, a[4], &cols));
  NAPI_CALL(env, napi_get_value_int32(env, a[5], &rows));
  NAPI_CALL(env, napi_get_value_int32(env, a[6], &uid));
  NAPI_CALL(env, napi_get_value_int32(env, a[7], &gid));
  NAPI_CALL(env, napi_get_value_bool(env, a[8], &utf8));
  if (uid != -1 || gid != -1) return fallback(env); /* node-pty switches user in its child; swb never asks */

  napi_value result = NULL;
  char *file = string_of(env, a[0]);
  char *cwd = string_of(env, a[3]);
  size_t argv_count = 0, env_count = 0;
  char **argv = file != NULL ? words_of(env, a[1], file, &argv_count) : NULL;
  char **child_env = words_of(env, a[2], NULL, &env_count);
  char *program = NULL;
  Watch *w = NULL;
  int master = -1, slave = -1;
  pid_t pid = -1;
  char slave_path[128];
  if (file == NULL || cwd == NULL || argv == NULL || child_env == NULL) goto done;
  if ((program = resolve_program(file, child_env, cwd)) == NULL) goto done;

  struct termios t;
  node_pty_termios(&t, utf8);
  /* As node-pty: the numbers as C ints, narrowed to the kernel's unsigned short. */
  struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols, .ws_xpixel = 0, .ws_ypixel = 0};
  if ((master = open_master(&t, &size, slave_path, sizeof slave_path, &slave)) < 0) goto done;

  if ((w = calloc(1, sizeof *w)) == NULL || pthread_mutex_init(&w->lock, NULL) != 0) {
    free(w);
    w = NULL;
    goto done;
  }
  w->refs = 1; /* the finalizer's */
  napi_value name;
  if (napi_create_string_utf8(env, "swb-pty-spawn-exit", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_threadsafe_function(env, a[10], NULL, name, 0, 1, w, watch_finalize, NULL, call_onexit, &w->tsfn) != napi_ok) {
    pthread_mutex_destroy(&w->lock);
    free(w);
    w = NULL;
    goto done;
  }

  pid = spawn_child(program, argv, child_env, cwd, slave_path);
  if (pid < 0) goto done;
  w->pid = pid;
  w->refs = 2; /* and the thread's */
  if (!start_watch(w)) {
    w->refs = 1;
    /* No way to hear of its exit: take it back, and let node-pty's fork try. */
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    goto done;
  }
  w = NULL; /* the thread's now */
  result = result_of(env, master, pid, slave_path);
  if (result != NULL) master = -1; /* node-pty's stream's now */

done:
  /* A function no thread will call: its finalizer frees the watch. */
  if (w != NULL) napi_release_threadsafe_function(w->tsfn, napi_tsfn_abort);
  if (slave >= 0) close(slave);
  if (master >= 0) close(master);
  free(program);
  free_words(argv, argv_count);
  free_words(child_env, env_count);
  free(cwd);
  free(file);
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  return result != NULL || pending ? result : fallback(env);
}
#endif /* PS_SUPPORTED */

NAPI_MODULE_INIT() {
#ifdef PS_SUPPORTED
  napi_value fn;
  NAPI_CALL(env, napi_create_function(env, "fork", NAPI_AUTO_LENGTH, pty_fork, NULL, &fn));
  NAPI_CALL(env, napi_set_named_property(env, exports, "fork", fn));
#endif
  return exports;
}
