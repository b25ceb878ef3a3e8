/* SPDX-License-Identifier: Apache-2.0 */
/* What init and an exec'd process share: the clone into the container's
 * pid namespace and cgroup, the process's own settings (signals, rlimits,
 * user, terminal), the program's path and the exec. */
#include "runtime/process_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/util.h"
#include "runtime/sync_internal.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static const char *
env_get (char *const *env, const char *name)
{
  size_t n = strlen (name);
  for (; env && *env; env++)
    if (strncmp (*env, name, n) == 0 && (*env)[n] == '=')
      return *env + n + 1;
  return NULL;
}

/* Whether execve of PATH can work for the process P will be.  access(2)
 * asks with the real uid and, for one that is not root, no capability at
 * all; and the capabilities are only applied right before the exec.  So:
 * a regular file with some x bit, which CAP_DAC_OVERRIDE in the process's
 * effective set is enough for (as for execve), else the effective ids'
 * permission.  Fails with errno set. */
static int
can_exec (const char *path, const struct shim_process *p)
{
  struct stat st;

  if (stat (path, &st) < 0)
    return -1;
  if (!S_ISREG (st.st_mode) || (st.st_mode & 0111) == 0)
    {
      errno = EACCES;
      return -1;
    }
  if (p->caps.effective & (UINT64_C (1) << CAP_DAC_OVERRIDE))
    return 0;
  return faccessat (AT_FDCWD, path, X_OK, AT_EACCESS);
}

/* The program's path, searched in $PATH of the container's environment (not
 * ours, which execvpe would use), before the wait for `start`: a missing
 * program fails create, as in runc, not start. */
int
process_find_executable (const struct shim_process *p, char **out, shim_error_t *err)
{
  const char *file = p->args[0];
  const char *path, *dir;
  int saved = ENOENT;
  size_t dlen;

  if (strchr (file, '/'))
    {
      if (can_exec (file, p) < 0)
        saved = errno;
      else if ((*out = strdup (file)) == NULL)
        return shim_error_errno (err, "process.args[0]");
      else
        return 0;
    }
  else
    {
      path = env_get (p->env, "PATH");
      if (path == NULL)
        path = DEFAULT_PATH;
      for (dir = path;; dir += dlen + 1)
        {
          char *buf = NULL;
          dlen = strcspn (dir, ":");
          /* An empty entry is the working directory, as for execvp. */
          if (asprintf (&buf, "%.*s/%s", dlen ? (int) dlen : 1, dlen ? dir : ".", file) < 0)
            return shim_error_errno (err, "process.args[0]");
          if (can_exec (buf, p) == 0)
            {
              *out = buf;
              return 0;
            }
          /* Remember a more telling error than "not there" (EACCES). */
          if (errno != ENOENT && errno != ENOTDIR)
            saved = errno;
          free (buf);
          if (dir[dlen] == '\0')
            break;
        }
    }
  /* runc's words, which podman turns into its exec's 127 ("no such file or
   * directory", "executable file not found in"). */
  if (saved == ENOENT && strchr (file, '/'))
    return shim_error_plain (err, ENOENT,
                             "process.args[0] \"%s\": not found in the container: no such file or directory", file);
  if (saved == ENOENT)
    return shim_error_plain (err, ENOENT, "process.args[0] \"%s\": executable file not found in $PATH in the container",
                             file);
  return shim_error (err, saved, "process.args[0] \"%s\": exec", file);
}

int
process_apply_rlimits (const struct shim_process *p, shim_error_t *err)
{
  size_t i;
  for (i = 0; i < p->n_rlimits; i++)
    {
      struct rlimit rl = { .rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard };
      struct rlimit cur;
      if (setrlimit (p->rlimits[i].resource, &rl) == 0)
        continue;
      /* The usual cause, said in words: raising a hard limit is a privilege. */
      if (errno == EPERM && getrlimit (p->rlimits[i].resource, &cur) == 0 && rl.rlim_max > cur.rlim_max)
        return shim_error_plain (err, EPERM,
                                 "process.rlimits[%zu]: hard limit %llu is above the runtime's own %llu, "
                                 "and raising it needs CAP_SYS_RESOURCE",
                                 i, (unsigned long long) rl.rlim_max, (unsigned long long) cur.rlim_max);
      return shim_error_errno (err, "process.rlimits[%zu]: setrlimit soft %llu, hard %llu", i,
                               (unsigned long long) rl.rlim_cur, (unsigned long long) rl.rlim_max);
    }
  return 0;
}

int
process_apply_user (const struct shim_process *p, shim_error_t *err)
{
  /* A user namespace whose setgroups is "deny" (written when the runtime
   * is not root) refuses even an empty list: with none asked for there is
   * nothing to set, as runc skips it there. */
  if (setgroups (p->n_additional_gids, p->additional_gids) < 0
      && !(errno == EPERM && p->n_additional_gids == 0))
    return shim_error_errno (err, "process.user.additionalGids: setgroups");
  if (setresgid (p->gid, p->gid, p->gid) < 0)
    return shim_error_errno (err, "process.user.gid: setresgid(%u)", (unsigned) p->gid);
  if (setresuid (p->uid, p->uid, p->uid) < 0)
    return shim_error_errno (err, "process.user.uid: setresuid(%u)", (unsigned) p->uid);
  return 0;
}

/* The process starts with no signal blocked or ignored. */
int
process_reset_signals (shim_error_t *err)
{
  sigset_t all;
  int i;

  /* The parent blocks the signals it forwards; the process must not
   * inherit that mask. */
  sigemptyset (&all);
  if (sigprocmask (SIG_SETMASK, &all, NULL) < 0)
    return shim_error_errno (err, "sigprocmask");
  /* Nor the signals the runtime's caller ignores: SIG_IGN survives exec,
   * and a shell starts background jobs with SIGINT and SIGQUIT ignored (a
   * pid-1 shell could then not even trap them).  SIGKILL, SIGSTOP and the
   * C library's own signals refuse the change; nothing is lost there. */
  /* glibc's signal() refuses its two internal real-time signals (32, 33),
   * but they can arrive ignored too (seen in CI: SigIgn 0x180000000); the
   * raw syscall resets every one. */
  for (i = 1; i < NSIG; i++)
    {
      struct
      {
        void (*handler) (int);
        unsigned long flags;
        void (*restorer) (void);
        uint64_t mask;
      } dfl = { .handler = SIG_DFL };
      syscall (SYS_rt_sigaction, (int) i, &dfl, NULL, sizeof (uint64_t));
    }
  return 0;
}

/* process.terminal: a pty from the container's own devpts, its slave made
 * init's stdio and controlling terminal, its master handed out (to the
 * console socket, or to the runtime over the sync socket). */
int
process_setup_terminal (const struct shim_process *p, int console_fd, int sync_fd, shim_error_t *err)
{
  cleanup_close int master = -1, slave = -1;
  char name[64];
  int i;

  master = open ("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0)
    return shim_error_errno (err, "process.terminal: open /dev/ptmx in the container");
  if (unlockpt (master) < 0 || ptsname_r (master, name, sizeof (name)) != 0)
    return shim_error_errno (err, "process.terminal: unlockpt");
  slave = open (name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0)
    return shim_error_errno (err, "process.terminal: open `%s`", name);
  /* The terminal is the process's: owned by its user, so that it can use
   * it as its own (mesg, a tty check), the group left as devpts made it
   * (gid=5, tty), as runc does.  An id the user namespace does not map
   * (EINVAL) leaves it as it is, as in runc. */
  if (p->uid != 0 && fchown (slave, p->uid, (gid_t) -1) < 0 && errno != EINVAL)
    return shim_error_errno (err, "process.terminal: chown `%s` to %u", name, (unsigned) p->uid);
  if (p->console_width || p->console_height)
    {
      struct winsize ws = { .ws_row = p->console_height, .ws_col = p->console_width };
      if (ioctl (slave, TIOCSWINSZ, &ws) < 0)
        return shim_error_errno (err, "process.consoleSize: TIOCSWINSZ");
    }
  for (i = 0; i < 3; i++)
    if (dup2 (slave, i) < 0)
      return shim_error_errno (err, "process.terminal: dup2");
  if (ioctl (0, TIOCSCTTY, 0) < 0)
    return shim_error_errno (err, "process.terminal: TIOCSCTTY");
  if (console_fd >= 0)
    {
      if (sync_send (console_fd, 0, 0, name, master) < 0)
        return shim_error_errno (err, "--console-socket: send the pty master");
      return 0;
    }
  if (sync_send (sync_fd, SYNC_PTY, 0, name, master) < 0)
    return shim_error_errno (err, "process.terminal: send the pty master");
  return 0;
}

/* Only stdio and, for socket activation, LISTEN_FDS (or --preserve-fds)
 * reach the process; then the capabilities and the seccomp filter. */
int
process_exec_prepare (const struct shim_config *cfg, struct security_state *sec, shim_error_t *err)
{
  const struct shim_process *p = &cfg->process;
  unsigned int keep = 0;
  const char *listen = env_get (p->env, "LISTEN_FDS");

  if (sec->applied)
    return 0;
  if (listen)
    {
      uint64_t n;
      if (util_parse_u64 (listen, &n) == 0 && n < 1024)
        keep = (unsigned int) n;
    }
  if (p->preserve_fds > keep)
    keep = p->preserve_fds;
  if (syscall (SYS_close_range, 3 + keep, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    return shim_error_errno (err, "close_range");
  return security_apply (cfg, sec, err);
}

/* The exec itself.  CFG->process is the process to run. */
int
process_exec (const struct shim_config *cfg, struct security_state *sec, const char *exe, shim_error_t *err)
{
  const struct shim_process *p = &cfg->process;

  /* Capabilities, then the seccomp filter: nothing after it but the exec
   * (and, for init, the startContainer hooks). */
  if (process_exec_prepare (cfg, sec, err) < 0)
    return -1;
  execve (exe, p->args, p->env ? p->env : (char *[]){ NULL });
  return shim_error_errno (err, "process.args[0] \"%s\": exec", p->args[0]);
}

/* A child that failed on the way (and said where, or we did): nothing of it
 * may survive. */
void
process_reap_failed (int pidfd, int *pty_master)
{
  siginfo_t si;
  syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  waitid (P_PIDFD, (id_t) pidfd, &si, WEXITED);
  close (pidfd);
  if (pty_master && *pty_master >= 0)
    close (*pty_master);
  if (pty_master)
    *pty_master = -1;
}

/* Whether this process may join its own pid namespace again once it joined
 * another: setns needs CAP_SYS_ADMIN in the user namespace that owns it.
 * Root of podman's user namespace (rootless podman runs the runtime there)
 * is not root of the initial one, which owns the host's pid namespace. */
static bool
may_return_to_pid_ns (void)
{
  cleanup_close int pidns = open ("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC), owner = -1;
  struct stat a, b;

  if (pidns < 0)
    return true;
  owner = ioctl (pidns, NS_GET_USERNS);
  /* EPERM: the owner is outside our user namespace, so not ours. */
  if (owner < 0)
    return errno != EPERM;
  return fstat (owner, &a) == 0 && stat ("/proc/self/ns/user", &b) == 0 && a.st_dev == b.st_dev
         && a.st_ino == b.st_ino;
}

/* The clone from a helper that joins PID_NS_FD and exits, so that this
 * process never changes its own: the child is cloned with CLONE_PARENT,
 * ours as any other, and its pidfd opened here (our child: no pid reuse
 * before we reap it).  Returns as process_clone. */
static pid_t
clone_through_helper (int pid_ns_fd, struct clone_args *ca, int *pidfd, shim_error_t *err)
{
  cleanup_close int rd = -1, wr = -1;
  int fds[2], st, result = 0;
  pid_t helper, pid;

  if (pipe2 (fds, O_CLOEXEC) < 0)
    return shim_error_errno (err, "pipe2");
  rd = fds[0];
  wr = fds[1];
  helper = fork ();
  if (helper < 0)
    return shim_error_errno (err, "fork the helper that joins the container's pid namespace");
  if (helper == 0)
    {
      ca->flags = (ca->flags & ~(uint64_t) CLONE_PIDFD) | CLONE_PARENT;
      ca->pidfd = 0;
      ca->exit_signal = 0; /* CLONE_PARENT: the helper's, SIGCHLD */
      if (setns (pid_ns_fd, CLONE_NEWPID) < 0)
        result = -errno;
      else
        {
          pid = (pid_t) syscall (SYS_clone3, ca, sizeof (*ca));
          if (pid == 0)
            {
              close (steal_fd (&rd));
              close (steal_fd (&wr));
              return 0;
            }
          result = pid < 0 ? -errno : pid;
        }
      _exit (write (wr, &result, sizeof result) == (ssize_t) sizeof result ? 0 : 1);
    }
  close (steal_fd (&wr));
  if (read (rd, &result, sizeof result) != (ssize_t) sizeof result)
    result = -EPIPE;
  while (waitpid (helper, &st, 0) < 0 && errno == EINTR)
    ;
  if (result < 0)
    return shim_error (err, -result, "%s", result == -EPIPE ? "the pid namespace helper died"
                                                              : "join the container's pid namespace (helper)");
  *pidfd = (int) syscall (SYS_pidfd_open, (pid_t) result, 0);
  if (*pidfd < 0)
    {
      shim_error_errno (err, "pidfd_open %d", result);
      kill (result, SIGKILL);
      waitpid (result, &st, 0);
      return -1;
    }
  return result;
}

/* clone3 a child with a pidfd into the pid namespace PID_NS_FD (-1: ours)
 * and the cgroup CGROUP_FD (-1: ours), with FLAGS (CLONE_NEW*) on top.
 * Joining a pid namespace only applies to children: it is done around the
 * clone and undone right after, or, where this process could not join its
 * own again (root of a user namespace that does not own it), in a helper
 * (clone_through_helper).  Returns the pid, 0 in the child; -1 with
 * nothing left behind. */
pid_t
process_clone (int pid_ns_fd, int cgroup_fd, uint64_t flags, int *pidfd, shim_error_t *err)
{
  cleanup_close int own_pid_ns = -1;
  struct clone_args ca = {
    .flags = flags | CLONE_PIDFD,
    .pidfd = (uint64_t) (uintptr_t) pidfd,
    .exit_signal = SIGCHLD,
  };
  pid_t pid;
  int saved;

  if (cgroup_fd >= 0)
    {
      ca.flags |= CLONE_INTO_CGROUP;
      ca.cgroup = (uint64_t) cgroup_fd;
    }
  if (pid_ns_fd >= 0 && !may_return_to_pid_ns ())
    return clone_through_helper (pid_ns_fd, &ca, pidfd, err);
  if (pid_ns_fd >= 0)
    {
      own_pid_ns = open ("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
      if (own_pid_ns < 0)
        return shim_error_errno (err, "open /proc/self/ns/pid");
      if (setns (pid_ns_fd, CLONE_NEWPID) < 0)
        return shim_error_errno (err, "join the container's pid namespace");
    }
  pid = (pid_t) syscall (SYS_clone3, &ca, sizeof (ca));
  if (pid == 0)
    return 0;
  saved = errno;
  if (own_pid_ns >= 0 && setns (own_pid_ns, CLONE_NEWPID) < 0)
    {
      shim_error_errno (err, "return to the runtime's pid namespace");
      if (pid > 0)
        process_reap_failed (*pidfd, NULL);
      return -1;
    }
  if (pid < 0)
    return shim_error (err, saved, "clone3");
  return pid;
}
