/* SPDX-License-Identifier: Apache-2.0 */
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <grp.h>

#include "rootfs.h"
#include "userns.h"
#include "util.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* What the child sends when it fails before exec: the errno and the text. */
struct child_error
{
  int status;
  char msg[4000];
};

static const char *
env_get (char *const *env, const char *name)
{
  size_t n = strlen (name);
  for (; env && *env; env++)
    if (strncmp (*env, name, n) == 0 && (*env)[n] == '=')
      return *env + n + 1;
  return NULL;
}

/* execve the program, searching $PATH of the container's environment (not
 * ours, which execvpe would use).  Returns only on failure. */
static int
exec_process (const struct shim_process *p, shim_error_t *err)
{
  const char *file = p->args[0];
  const char *path;
  cleanup_free char *buf = NULL;
  int saved = ENOENT;

  if (strchr (file, '/'))
    {
      execve (file, p->args, p->env ? p->env : (char *[]){ NULL });
      saved = errno;
    }
  else
    {
      const char *dir;
      size_t dlen;
      path = env_get (p->env, "PATH");
      if (path == NULL)
        path = DEFAULT_PATH;
      for (dir = path;; dir += dlen + 1)
        {
          dlen = strcspn (dir, ":");
          free (buf);
          buf = NULL;
          /* An empty entry is the working directory, as for execvp. */
          if (asprintf (&buf, "%.*s/%s", dlen ? (int) dlen : 1, dlen ? dir : ".", file) < 0)
            return shim_error_errno (err, "process.args[0]");
          execve (buf, p->args, p->env ? p->env : (char *[]){ NULL });
          /* Remember a more telling error than "not there" (EACCES, ENOEXEC). */
          if (errno != ENOENT && errno != ENOTDIR)
            saved = errno;
          if (dir[dlen] == '\0')
            break;
        }
    }
  if (saved == ENOENT)
    return shim_error_plain (err, ENOENT, "process.args[0] \"%s\": not found in the container", file);
  return shim_error (err, saved, "process.args[0] \"%s\": exec", file);
}

static int
apply_rlimits (const struct shim_process *p, shim_error_t *err)
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
        return shim_error (err, EPERM,
                           "process.rlimits[%zu]: hard limit %llu is above the runtime's own %llu, "
                           "and raising it needs CAP_SYS_RESOURCE",
                           i, (unsigned long long) rl.rlim_max, (unsigned long long) cur.rlim_max);
      return shim_error_errno (err, "process.rlimits[%zu]: setrlimit soft %llu, hard %llu", i,
                               (unsigned long long) rl.rlim_cur, (unsigned long long) rl.rlim_max);
    }
  return 0;
}

static int
apply_user (const struct shim_process *p, shim_error_t *err)
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

/* A new network namespace has only `lo`, and it is down; runc and crun bring
 * it up, and programs expect 127.0.0.1 to work. */
static int
loopback_up (shim_error_t *err)
{
  cleanup_close int s = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr = { .ifr_name = "lo" };

  if (s < 0)
    return shim_error_errno (err, "socket for `lo`");
  if (ioctl (s, SIOCGIFFLAGS, &ifr) < 0)
    return shim_error_errno (err, "get the flags of `lo`");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl (s, SIOCSIFFLAGS, &ifr) < 0)
    return shim_error_errno (err, "bring `lo` up");
  return 0;
}

static int
write_oom_score_adj (int v, shim_error_t *err)
{
  char buf[16];
  int n = snprintf (buf, sizeof (buf), "%d", v);
  if (write_file_at (AT_FDCWD, "/proc/self/oom_score_adj", buf, (size_t) n, err) < 0)
    return shim_error_prefix (err, "process.oomScoreAdj");
  return 0;
}

/* File descriptors the child inherits from the parent: one per namespace to
 * join (by config index), or -1; and the namespaces it creates itself,
 * inside a user namespace it joins (clone3 would make them the host's). */
struct ns_fds
{
  int *fds;
  size_t n;
  int unshare_flags;
};

/* The user namespace first: the others joined or created after it belong
 * to it, and the ids below mean its ids. */
static int
join_namespaces (const struct shim_config *cfg, const struct ns_fds *ns, shim_error_t *err)
{
  size_t i;
  int pass;

  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < ns->n; i++)
      {
        int type = cfg->namespaces[i].type;
        if (ns->fds[i] < 0 || type == CLONE_NEWPID || (type == CLONE_NEWUSER) != (pass == 0))
          continue;
        if (setns (ns->fds[i], type) < 0)
          return shim_error_errno (err, "linux.namespaces[%zu]: join `%s`", i, cfg->namespaces[i].path);
        if (type == CLONE_NEWUSER && userns_become_root (err) < 0)
          return -1;
      }
  if (ns->unshare_flags && unshare (ns->unshare_flags) < 0)
    return shim_error_errno (err, "linux.namespaces: create the namespaces inside the joined user namespace");
  return 0;
}

static int
child_setup (const struct shim_config *cfg, const struct container_opts *opts, const struct ns_fds *ns,
             int sync_fd, shim_error_t *err)
{
  const struct shim_process *p = &cfg->process;
  struct rootfs_opts ro = { .no_pivot = opts->no_pivot };
  const struct shim_namespace *net;
  sigset_t all;
  size_t i;
  unsigned int keep = 0;
  const char *listen;

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
  /* Die with the runtime instead of lingering if it is killed. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  /* A session of its own: kill(0, ...) or a terminal's ^C inside must not
   * reach the runtime's caller, which shares our process group otherwise
   * (measured: examples/forkbomb's kill(0, SIGTERM) took down the bats run
   * that started shim).  Signals for the container go through shim. */
  if (setsid () < 0)
    return shim_error_errno (err, "setsid");

  if (userns_wait_maps (sync_fd, cfg, err) < 0)
    return -1;
  if (join_namespaces (cfg, ns, err) < 0)
    return -1;

  /* Still the host's /proc: the container's may not even be mounted. */
  if (p->has_oom_score_adj && write_oom_score_adj (p->oom_score_adj, err) < 0)
    return -1;
  if (apply_rlimits (p, err) < 0)
    return -1;
  if (cfg->hostname && sethostname (cfg->hostname, strlen (cfg->hostname)) < 0)
    return shim_error_errno (err, "hostname: sethostname `%s`", cfg->hostname);
  net = shim_config_namespace (cfg, CLONE_NEWNET);
  if (net && net->path == NULL && loopback_up (err) < 0)
    return -1;

  umask (0);
  if (rootfs_setup (cfg, &ro, err) < 0 || rootfs_finalize (cfg, err) < 0)
    return -1;
  umask (p->has_umask ? p->umask : 022);

  if (chdir (p->cwd) < 0)
    return shim_error_errno (err, "process.cwd `%s`", p->cwd);
  if (apply_user (p, err) < 0)
    return -1;
  /* Changing the uid or gid cleared the parent-death signal: set it again,
   * or a container of another user outlives a killed runtime. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  if (p->no_new_privileges && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return shim_error_errno (err, "process.noNewPrivileges: prctl");

  /* Only stdio and, for socket activation, LISTEN_FDS reach the process. */
  listen = env_get (p->env, "LISTEN_FDS");
  if (listen)
    {
      uint64_t n;
      if (parse_u64 (listen, &n) == 0 && n < 1024)
        keep = (unsigned int) n;
    }
  if (syscall (SYS_close_range, 3 + keep, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    return shim_error_errno (err, "close_range");
  return exec_process (p, err);
}

static void
child_fail (int sync_fd, shim_error_t *err)
{
  struct child_error ce = { 0 };
  ssize_t r;
  if (*err)
    {
      ce.status = (*err)->status;
      snprintf (ce.msg, sizeof (ce.msg), "%s", (*err)->msg);
    }
  do
    r = send (sync_fd, &ce, sizeof (ce), MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  _exit (1);
}

static void
close_ns_fds (struct ns_fds *ns)
{
  size_t i;
  for (i = 0; i < ns->n; i++)
    if (ns->fds[i] >= 0)
      close (ns->fds[i]);
  free (ns->fds);
}

static int
open_ns_fds (const struct shim_config *cfg, struct ns_fds *ns, int *pid_ns_fd, shim_error_t *err)
{
  size_t i;

  ns->n = cfg->n_namespaces;
  ns->fds = calloc (ns->n + 1, sizeof (int));
  if (ns->fds == NULL)
    return shim_error_errno (err, "linux.namespaces");
  for (i = 0; i < ns->n; i++)
    ns->fds[i] = -1;
  for (i = 0; i < ns->n; i++)
    {
      const struct shim_namespace *n = &cfg->namespaces[i];
      if (n->path == NULL)
        continue;
      ns->fds[i] = open (n->path, O_RDONLY | O_CLOEXEC);
      if (ns->fds[i] < 0)
        return shim_error_errno (err, "linux.namespaces[%zu].path `%s`", i, n->path);
      if (n->type == CLONE_NEWPID)
        *pid_ns_fd = ns->fds[i];
    }
  return 0;
}

int
container_spawn (const struct shim_config *cfg, const struct container_opts *opts,
                 struct container_proc *out, shim_error_t *err)
{
  __attribute__ ((cleanup (close_ns_fds))) struct ns_fds ns = { 0 };
  cleanup_close int parent_end = -1;
  cleanup_close int child_end = -1;
  cleanup_close int own_pid_ns = -1;
  int pid_ns_fd = -1, pidfd = -1, sync[2];
  const struct shim_namespace *user = shim_config_namespace (cfg, CLONE_NEWUSER);
  bool join_user = user != NULL && user->path != NULL;
  struct clone_args ca = { 0 };
  struct child_error ce;
  pid_t pid;
  ssize_t r;
  size_t i;

  if (open_ns_fds (cfg, &ns, &pid_ns_fd, err) < 0)
    return -1;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sync) < 0)
    return shim_error_errno (err, "socketpair");
  parent_end = sync[0];
  child_end = sync[1];
  for (i = 0; i < cfg->n_namespaces; i++)
    {
      int type = cfg->namespaces[i].type;
      if (cfg->namespaces[i].path != NULL)
        continue;
      /* Made by unshare in the child, after it joined the user
       * namespace: clone3 would make them the host's. */
      if (join_user)
        ns.unshare_flags |= type;
      else
        ca.flags |= (uint64_t) type;
    }

  /* Joining a pid namespace only applies to children, so it is done here,
   * around the clone, and undone right after. */
  if (pid_ns_fd >= 0)
    {
      own_pid_ns = open ("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
      if (own_pid_ns < 0)
        return shim_error_errno (err, "open /proc/self/ns/pid");
      if (setns (pid_ns_fd, CLONE_NEWPID) < 0)
        return shim_error_errno (err, "linux.namespaces: join the pid namespace");
    }

  ca.flags |= CLONE_PIDFD;
  ca.pidfd = (uint64_t) (uintptr_t) &pidfd;
  ca.exit_signal = SIGCHLD;
  if (opts->cgroup_fd >= 0)
    {
      ca.flags |= CLONE_INTO_CGROUP;
      ca.cgroup = (uint64_t) opts->cgroup_fd;
    }
  pid = (pid_t) syscall (SYS_clone3, &ca, sizeof (ca));
  if (pid == 0)
    {
      shim_error_t cerr = NULL;
      child_setup (cfg, opts, &ns, child_end, &cerr);
      child_fail (child_end, &cerr);
    }
  if (pid < 0)
    return shim_error_errno (err, "clone3");
  if (own_pid_ns >= 0 && setns (own_pid_ns, CLONE_NEWPID) < 0)
    {
      shim_error_errno (err, "return to the runtime's pid namespace");
      kill (pid, SIGKILL);
    }
  if (*err == NULL && userns_write_maps (pid, parent_end, cfg, err) < 0)
    kill (pid, SIGKILL);
  close (steal_fd (&child_end));

  /* EOF: the exec closed the child's end (close-on-exec).  A message: it
   * failed on the way, and says where. */
  do
    r = recv (parent_end, &ce, sizeof (ce), 0);
  while (r < 0 && errno == EINTR);
  if (r != 0 || *err)
    {
      siginfo_t si;
      int saved = errno;
      waitid (P_PIDFD, (id_t) pidfd, &si, WEXITED);
      close (pidfd);
      if (*err)
        return -1;
      if (r < 0)
        return shim_error (err, saved, "read from the container's init");
      ce.msg[sizeof (ce.msg) - 1] = '\0';
      shim_error (err, 0, "%s", ce.msg);
      (*err)->status = ce.status;
      return -1;
    }
  out->pid = pid;
  out->pidfd = pidfd;
  return 0;
}
