/* SPDX-License-Identifier: Apache-2.0 */
/* ps ID PS_ARGS...: ps(1)'s own table, cut down to the container's
 * processes, as runc prints it: its header, then the lines whose PID
 * column is a pid of the container's cgroup. */
#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"

/* ps(1) reads /proc and answers at once; a bound keeps a stuck one (a
 * process in D state's cmdline) from holding `shim ps` forever. */
#define PS_TIMEOUT_MS 10000
#define PS_MAX_OUTPUT (16u << 20)

/* The child: stdout and stderr into the pipe (runc takes the combined
 * output), stdin from /dev/null, then ps. */
static _Noreturn void
ps_child (int out, char *const *argv)
{
  sigset_t none;
  int null = open ("/dev/null", O_RDONLY | O_CLOEXEC);

  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  if (null < 0 || dup2 (null, 0) < 0 || dup2 (out, 1) < 0 || dup2 (out, 2) < 0)
    _exit (127);
  /* Nothing of the runtime's caller reaches ps but stdio. */
  syscall (SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
  execvp ("ps", argv);
  dprintf (2, "exec ps: %s\n", strerror (errno));
  _exit (127);
}

/* Read everything the child writes until EOF, within the deadline. */
static int
read_output (int fd, long long deadline, char **buf, size_t *len, shim_error_t *err)
{
  size_t cap = 0;

  for (;;)
    {
      struct pollfd p = { .fd = fd, .events = POLLIN };
      ssize_t r;
      int ready = util_poll_until (&p, 1, deadline);

      if (ready < 0)
        return shim_error_errno (err, "ps: poll");
      if (ready == 0)
        return shim_error_plain (err, ETIMEDOUT, "ps: no answer within %d s", PS_TIMEOUT_MS / 1000);
      if (*len + 4096 + 1 > cap)
        {
          char *nb;
          if (cap >= PS_MAX_OUTPUT)
            return shim_error_plain (err, EFBIG, "ps: more than %u bytes of output", PS_MAX_OUTPUT);
          nb = realloc (*buf, cap = cap ? 2 * cap : 16384);
          if (nb == NULL)
            return shim_error_errno (err, "ps");
          *buf = nb;
        }
      r = read (fd, *buf + *len, cap - *len - 1);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return shim_error_errno (err, "ps: read");
      if (r == 0)
        break;
      *len += (size_t) r;
    }
  if (*buf == NULL && (*buf = malloc (1)) == NULL)
    return shim_error_errno (err, "ps");
  (*buf)[*len] = '\0';
  return 0;
}

/* ps ARGS: its combined output (malloc'd); an error when it fails. */
static int
run_ps (char *const *args, size_t n_args, char **out, shim_error_t *err)
{
  cleanup_free char **argv = calloc (n_args + 2, sizeof (char *));
  cleanup_close int rd = -1, wr = -1, pidfd = -1;
  long long deadline = util_monotonic_ms () + PS_TIMEOUT_MS;
  size_t len = 0, i;
  siginfo_t si = { 0 };
  int pp[2], ret;
  pid_t pid;

  *out = NULL;
  if (argv == NULL)
    return shim_error_errno (err, "ps");
  argv[0] = (char *) "ps";
  for (i = 0; i < n_args; i++)
    argv[i + 1] = args[i];
  if (pipe2 (pp, O_CLOEXEC) < 0)
    return shim_error_errno (err, "ps: pipe");
  rd = pp[0];
  wr = pp[1];
  pid = fork ();
  if (pid < 0)
    return shim_error_errno (err, "ps: fork");
  if (pid == 0)
    ps_child (wr, argv);
  close (steal_fd (&wr));
  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  ret = read_output (rd, deadline, out, &len, err);
  if (ret == 0 && pidfd >= 0)
    {
      /* EOF: ps closed its output, and exits. */
      struct pollfd p = { .fd = pidfd, .events = POLLIN };
      if (util_poll_until (&p, 1, deadline) <= 0)
        ret = shim_error_plain (err, ETIMEDOUT, "ps: no exit within %d s", PS_TIMEOUT_MS / 1000);
    }
  if (ret < 0)
    kill (pid, SIGKILL);
  if (waitid (P_PID, (id_t) pid, &si, WEXITED) < 0 && ret == 0)
    return shim_error_errno (err, "ps: wait");
  if (ret < 0)
    return -1;
  if (si.si_code != CLD_EXITED || si.si_status != 0)
    {
      size_t l = strlen (*out);
      while (l > 0 && (*out)[l - 1] == '\n')
        (*out)[--l] = '\0';
      return shim_error_plain (err, ECHILD, "ps: %s %d: %s", si.si_code == CLD_EXITED ? "exited with" : "killed by signal",
                               si.si_status, *out);
    }
  return 0;
}

/* The index of the PID column in ps's header, or -1. */
static int
pid_column (const char *header)
{
  cleanup_free char *copy = strdup (header);
  char *f, *save = NULL;
  int i = 0;

  if (copy == NULL)
    return -1;
  for (f = strtok_r (copy, " \t", &save); f; f = strtok_r (NULL, " \t", &save), i++)
    if (strcmp (f, "PID") == 0)
      return i;
  return -1;
}

/* Field IDX of LINE (whitespace-separated), copied into buf. */
static bool
field_at (const char *line, int idx, char *buf, size_t size)
{
  const char *p = line;
  int i;

  for (i = 0;; i++)
    {
      size_t len;
      p += strspn (p, " \t");
      if (*p == '\0')
        return false;
      len = strcspn (p, " \t");
      if (i == idx)
        {
          if (len >= size)
            return false;
          memcpy (buf, p, len);
          buf[len] = '\0';
          return true;
        }
      p += len;
    }
}

static bool
has_pid (const struct runtime_ps_entry *e, size_t n, const char *pid)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (strcmp (e[i].pid, pid) == 0)
      return true;
  return false;
}

/* Keep ps's header and the lines of the container's pids, in place. */
static int
filter_table (char *output, const struct runtime_ps_entry *e, size_t n, shim_error_t *err)
{
  char *line = output, *out = output;
  int col = -1;

  while (*line)
    {
      char *end = strchrnul (line, '\n'), pid[32];
      size_t len = (size_t) (end - line);
      bool keep;

      if (*end)
        *end++ = '\0';
      if (col < 0)
        {
          col = pid_column (line);
          if (col < 0)
            return shim_error_plain (err, EINVAL, "ps: no PID column in ps's output (give ps options that print it)");
          keep = true;
        }
      else if (len == 0)
        keep = false;
      else if (!field_at (line, col, pid, sizeof (pid)) || strspn (pid, "0123456789") != strlen (pid))
        return shim_error_plain (err, EINVAL, "ps: unable to parse the pid in `%s`", line);
      else
        keep = has_pid (e, n, pid);
      if (keep)
        {
          memmove (out, line, len);
          out[len] = '\n';
          out += len + 1;
        }
      line = end;
    }
  if (col < 0)
    return shim_error_plain (err, EINVAL, "ps: no output from ps");
  *out = '\0';
  return 0;
}

int
runtime_ps_table (const struct runtime_ctx *ctx, const char *id, char *const *ps_args, size_t n_args, char **table,
                  shim_error_t *err)
{
  struct runtime_ps_entry *e = NULL;
  size_t n = 0;
  int ret;

  *table = NULL;
  ret = runtime_ps (ctx, id, &e, &n, err);
  if (ret == 0)
    ret = run_ps (ps_args, n_args, table, err);
  if (ret == 0)
    ret = filter_table (*table, e, n, err);
  runtime_ps_free (e, n);
  if (ret < 0)
    {
      free (*table);
      *table = NULL;
    }
  return ret;
}
