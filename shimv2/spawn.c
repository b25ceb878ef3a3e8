/* SPDX-License-Identifier: Apache-2.0 */
/* The helper child of create and exec (see spawn.h). */
#include "shimv2/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

/* A stdio FIFO containerd made (or /dev/null for none) as fd TARGET of
 * the child: read-write for the output ones, which then never block on a
 * reader that has not opened yet. */
static int
stdio_open (const char *path, int target, int flags)
{
  int fd = open (path && *path ? path : "/dev/null", flags | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (fcntl (fd, F_SETFL, flags) < 0 || dup2 (fd, target) < 0)
    return -1;
  close (fd);
  return 0;
}

static void __attribute__ ((noreturn))
child (const struct spawn_stdio *io, int (*fn) (void *arg, shim_error_t *err), void *arg, int errfd)
{
  shim_error_t e = NULL;
  sigset_t all;

  sigemptyset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL);
  /* libshim's log stays the shim's (the bundle's log FIFO, our stderr
   * until the process's replaces it). */
  log_init ("containerd-shim-shim-v2", "/proc/self/fd/2", "text", log_debug_enabled (), NULL);
  if (stdio_open (io->in, 0, O_RDONLY) < 0 || stdio_open (io->out, 1, O_RDWR) < 0
      || stdio_open (io->err, 2, O_RDWR) < 0)
    {
      dprintf (errfd, "opening the stdio FIFOs: %m");
      _exit (1);
    }
  if (fn (arg, &e) < 0)
    {
      dprintf (errfd, "%s", e->msg);
      _exit (e->status > 0 && e->status < 256 ? e->status : 1);
    }
  _exit (0);
}

int
spawn_run (const struct spawn_stdio *io, int (*fn) (void *arg, shim_error_t *err), void *arg, int timeout_ms,
           shim_error_t *err)
{
  char msg[2048] = "";
  int fds[2], status = 0;
  size_t got = 0;
  pid_t pid;

  if (pipe2 (fds, O_CLOEXEC) < 0)
    return shim_error_errno (err, "pipe2");
  pid = fork ();
  if (pid < 0)
    {
      close (fds[0]);
      close (fds[1]);
      return shim_error_errno (err, "fork");
    }
  if (pid == 0)
    child (io, fn, arg, fds[1]);
  close (fds[1]);
  /* Wait for the child's exit, bounded; the pipe never ends by itself:
   * the process made by FN holds its write end until it execs. */
  {
    cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
    struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
    ssize_t n;
    if (pidfd < 0 || poll (&pfd, 1, timeout_ms) <= 0)
      kill (pid, SIGKILL);
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
      ;
    fcntl (fds[0], F_SETFL, O_NONBLOCK);
    while (got < sizeof msg - 1 && (n = read (fds[0], msg + got, sizeof msg - 1 - got)) > 0)
      got += (size_t) n;
  }
  close (fds[0]);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return shim_error_plain (err, WIFEXITED (status) ? WEXITSTATUS (status) : ETIMEDOUT, "%s",
                             got ? msg : "the process was not made (the helper process died)");
  return 0;
}

int
spawn_stdin_holder (const char *path, int *fd, shim_error_t *err)
{
  *fd = -1;
  if (path == NULL || *path == '\0')
    return 0;
  /* O_RDWR: never blocks on a FIFO, and holds a writer from now on. */
  *fd = open (path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0)
    return shim_error_errno (err, "open the stdin FIFO %s", path);
  return 0;
}

int
spawn_read_pid (const char *dir, const char *name, pid_t *pid, shim_error_t *err)
{
  cleanup_close int dfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_free char *text = NULL;
  int64_t v = 0;

  if (util_read_file_at (dfd, name, &text, NULL, err) < 0)
    return -1;
  if (util_parse_i64 (text, &v) < 0 || v <= 0 || v > INT32_MAX)
    return shim_error (err, EPROTO, "no pid in %s/%s", dir, name);
  *pid = (pid_t) v;
  return 0;
}
