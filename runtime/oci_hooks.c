/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/oci_hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

/* How much of a hook's output an error message quotes. */
#define OUTPUT_MAX 2048

struct output
{
  char buf[OUTPUT_MAX];
  size_t len;
};

/* Returns what read returned: 0 is the end of the hook's output. */
static ssize_t
output_take (struct output *o, int fd)
{
  char tmp[4096];
  ssize_t r = read (fd, tmp, sizeof (tmp));
  size_t n;
  if (r <= 0)
    return r;
  n = (size_t) r;
  if (n > sizeof (o->buf) - 1 - o->len)
    n = sizeof (o->buf) - 1 - o->len;
  memcpy (o->buf + o->len, tmp, n);
  o->len += n;
  o->buf[o->len] = '\0';
  return r;
}

static _Noreturn void
hook_child (const struct shim_hook *h, const char *dir, int in, int out)
{
  char *argv0[] = { h->path, NULL };
  sigset_t none;

  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  if (dup2 (in, 0) < 0 || dup2 (out, 1) < 0 || dup2 (out, 2) < 0)
    _exit (127);
  if (dir && chdir (dir) < 0)
    {
      dprintf (2, "chdir `%s`: %s", dir, strerror (errno));
      _exit (127);
    }
  /* Nothing of the runtime's reaches the hook but stdio. */
  syscall (SYS_close_range, 3, ~0U, 0);
  execve (h->path, h->args ? h->args : argv0, h->env ? h->env : (char *[]){ NULL });
  dprintf (2, "exec: %s", strerror (errno));
  _exit (127);
}

/* Feed the state, collect the output, wait for the exit or the timeout. */
static int
supervise (const struct shim_hook *h, const char *where, pid_t pid, int pidfd, int in, int out,
           const char *state, struct output *o, shim_error_t *err)
{
  size_t off = 0, len = strlen (state);
  long long deadline = h->timeout > 0 ? util_monotonic_ms () + h->timeout * 1000LL : -1;
  siginfo_t si = { 0 };
  bool out_open = true;

  for (;;)
    {
      /* A negative fd is skipped by poll: the output once it ended. */
      struct pollfd p[3] = {
        { .fd = pidfd, .events = POLLIN },
        { .fd = out_open ? out : -1, .events = POLLIN },
        { .fd = in, .events = POLLOUT },
      };
      int timeout = deadline < 0 ? -1 : (int) (deadline - util_monotonic_ms ());
      int n;

      if (deadline >= 0 && timeout <= 0)
        {
          kill (pid, SIGKILL);
          waitid (P_PIDFD, (id_t) pidfd, &si, WEXITED);
          return shim_error_plain (err, ETIMEDOUT, "%s \"%s\": timed out after %d s", where, h->path,
                                   h->timeout);
        }
      n = poll (p, in >= 0 ? 3 : 2, timeout);
      if (n < 0 && errno != EINTR)
        return shim_error_errno (err, "%s: poll", where);
      if (n <= 0)
        continue;
      /* A hook that closed its stdout and stderr and keeps running makes
       * the pipe POLLHUP at once, forever: that is the end of its output,
       * not a reason to poll again (measured: 1.17 M polls a second when
       * it was polled on).  Its exit still comes on the pidfd. */
      if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
        {
          ssize_t r = output_take (o, out);
          if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
            out_open = false;
        }
      if (in >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP)))
        {
          /* A hook that does not read its stdin must not block us: the
           * socket is non-blocking, and EPIPE just ends the feeding. */
          ssize_t w = send (in, state + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
          if (w > 0)
            off += (size_t) w;
          if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == len)
            {
              close (in);
              in = -1;
            }
        }
      if (p[0].revents & POLLIN)
        break;
    }
  if (in >= 0)
    close (in);
  if (waitid (P_PIDFD, (id_t) pidfd, &si, WEXITED) < 0)
    return shim_error_errno (err, "%s: wait for \"%s\"", where, h->path);
  /* What it wrote before exiting; a daemon it left holding the pipe must
   * not keep us here, so no blocking read to EOF. */
  output_take (o, out);
  while (o->len && (o->buf[o->len - 1] == '\n' || o->buf[o->len - 1] == ' '))
    o->buf[--o->len] = '\0';
  if (si.si_code == CLD_EXITED && si.si_status == 0)
    return 0;
  if (si.si_code == CLD_EXITED)
    return shim_error_plain (err, ECANCELED, "%s \"%s\": exited with status %d%s%s", where, h->path,
                             si.si_status, o->len ? ": " : "", o->buf);
  return shim_error_plain (err, ECANCELED, "%s \"%s\": killed by signal %d%s%s", where, h->path,
                           si.si_status, o->len ? ": " : "", o->buf);
}

static int
run_one (const struct shim_hook *h, const char *where, const char *dir, const char *state, shim_error_t *err)
{
  cleanup_close int in_parent = -1, in_child = -1, out_parent = -1, out_child = -1, pidfd = -1;
  struct output o = { .len = 0 };
  int sv[2], pp[2];
  pid_t pid;

  /* stdin is a socket so that feeding a hook that already exited is an
   * EPIPE (MSG_NOSIGNAL), not a SIGPIPE that kills the runtime. */
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return shim_error_errno (err, "%s: socketpair", where);
  in_parent = sv[0];
  in_child = sv[1];
  if (pipe2 (pp, O_CLOEXEC) < 0)
    return shim_error_errno (err, "%s: pipe", where);
  out_parent = pp[0];
  out_child = pp[1];
  if (shutdown (in_child, SHUT_WR) < 0 || fcntl (out_parent, F_SETFL, O_NONBLOCK) < 0)
    return shim_error_errno (err, "%s: set up stdio", where);
  pid = fork ();
  if (pid < 0)
    return shim_error_errno (err, "%s: fork", where);
  if (pid == 0)
    hook_child (h, dir, in_child, out_child);
  close (steal_fd (&in_child));
  close (steal_fd (&out_child));
  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  if (pidfd < 0)
    {
      shim_error_errno (err, "%s: pidfd_open", where);
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      return -1;
    }
  return supervise (h, where, pid, pidfd, steal_fd (&in_parent), out_parent, state, &o, err);
}

/* The working directory of a hook, as runc's: `create` and `run` work in
 * the bundle, init in the rootfs until it enters it (a createContainer
 * hook's relative paths are the rootfs's: runc's hooks_so test relies on
 * it).  startContainer hooks keep the process's cwd, and poststop ones
 * the caller's (`delete` may run when the bundle is gone). */
static const char *
hook_dir (const struct shim_config *cfg, enum shim_hook_stage stage)
{
  switch (stage)
    {
    case HOOK_CREATE_CONTAINER:
      return cfg->root_path;
    case HOOK_PRESTART:
    case HOOK_CREATE_RUNTIME:
    case HOOK_POSTSTART:
      return cfg->bundle;
    default:
      return NULL;
    }
}

int
oci_hooks_run (const struct shim_config *cfg, enum shim_hook_stage stage, const char *state_json,
           shim_error_t *err)
{
  const struct shim_hook_list *l = &cfg->hooks[stage];
  size_t i;

  for (i = 0; i < l->n; i++)
    {
      char where[64];
      snprintf (where, sizeof (where), "hooks.%s[%zu]", config_hook_stage_name (stage), i);
      log_msg (LOG_DEBUG, "running %s \"%s\"", where, l->v[i].path);
      /* runc's words first ("error running hook #0: ..."): scripts and
       * engines grep for them; shim's sentence says which hook and why. */
      if (run_one (&l->v[i], where, hook_dir (cfg, stage), state_json, err) < 0)
        return shim_error_prefix (err, "error running hook #%zu", i);
    }
  return 0;
}

int
oci_hooks_run_all (const struct shim_config *cfg, enum shim_hook_stage stage, const char *state_json)
{
  const struct shim_hook_list *l = &cfg->hooks[stage];
  size_t i;
  int failed = 0;

  for (i = 0; i < l->n; i++)
    {
      shim_error_t tmp = NULL;
      char where[64];
      snprintf (where, sizeof (where), "hooks.%s[%zu]", config_hook_stage_name (stage), i);
      if (run_one (&l->v[i], where, hook_dir (cfg, stage), state_json, &tmp) < 0)
        {
          log_msg (LOG_WARNING, "error running hook #%zu: %s", i, tmp->msg);
          shim_error_release (&tmp);
          failed++;
        }
    }
  return failed;
}
