/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/container.h"

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
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <grp.h>
#include <stddef.h>
#include <pty.h>
#include <termios.h>

#include "runtime/oci_hooks.h"
#include "runtime/state.h"

#include "runtime/rootfs.h"
#include "runtime/security.h"
#include "runtime/userns.h"
#include "common/util.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* init and the runtime talk over a SOCK_SEQPACKET pair; one message per
 * step, the text (an error, or the state JSON for init's hooks) after the
 * header.  EOF means init has exec'd (the socket is close-on-exec). */
enum sync_type
{
  SYNC_ERROR = 1,      /* init -> runtime: it failed; status and message */
  SYNC_CREATE_RUNTIME, /* init -> runtime: mounts done, run the hooks */
  SYNC_GO,             /* runtime -> init: go on; the state JSON */
  SYNC_PTY,            /* init -> runtime: the pty master (SCM_RIGHTS) */
  SYNC_READY,          /* init -> runtime: all set, about to wait for start */
};

struct sync_msg
{
  int type;
  int status;
  char text[65536 - 2 * sizeof (int)];
};

static int
sync_send (int fd, int type, int status, const char *text, int pass_fd)
{
  struct sync_msg m = { .type = type, .status = status };
  size_t tlen = text ? strlen (text) : 0;
  struct iovec iov = { .iov_base = &m, .iov_len = offsetof (struct sync_msg, text) + tlen + 1 };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  ssize_t r;

  if (tlen >= sizeof (m.text))
    tlen = sizeof (m.text) - 1;
  memcpy (m.text, text ? text : "", tlen);
  m.text[tlen] = '\0';
  iov.iov_len = offsetof (struct sync_msg, text) + tlen + 1;
  if (pass_fd >= 0)
    {
      struct cmsghdr *c;
      mh.msg_control = u.buf;
      mh.msg_controllen = sizeof (u.buf);
      c = CMSG_FIRSTHDR (&mh);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (sizeof (int));
      memcpy (CMSG_DATA (c), &pass_fd, sizeof (int));
    }
  do
    r = sendmsg (fd, &mh, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  return r < 0 ? -1 : 0;
}

/* Returns the bytes read (0 at EOF) or -1; a passed fd lands in *fd_out. */
static ssize_t
sync_recv (int fd, struct sync_msg *m, int *fd_out)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct iovec iov = { .iov_base = m, .iov_len = sizeof (*m) };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof (u.buf) };
  struct cmsghdr *c;
  ssize_t r;

  do
    r = recvmsg (fd, &mh, MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r <= 0)
    return r;
  if ((size_t) r < offsetof (struct sync_msg, text) + 1)
    {
      errno = EPROTO;
      return -1;
    }
  m->text[sizeof (m->text) - 1] = '\0';
  for (c = CMSG_FIRSTHDR (&mh); c; c = CMSG_NXTHDR (&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && fd_out)
      memcpy (fd_out, CMSG_DATA (c), sizeof (int));
  return r;
}

static const char *
env_get (char *const *env, const char *name)
{
  size_t n = strlen (name);
  for (; env && *env; env++)
    if (strncmp (*env, name, n) == 0 && (*env)[n] == '=')
      return *env + n + 1;
  return NULL;
}

/* The program's path, searched in $PATH of the container's environment (not
 * ours, which execvpe would use), before the wait for `start`: a missing
 * program fails create, as in runc, not start. */
static int
find_executable (const struct shim_process *p, char **out, shim_error_t *err)
{
  const char *file = p->args[0];
  const char *path, *dir;
  int saved = ENOENT;
  size_t dlen;

  if (strchr (file, '/'))
    {
      if (access (file, X_OK) < 0)
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
          struct stat st;
          char *buf = NULL;
          dlen = strcspn (dir, ":");
          /* An empty entry is the working directory, as for execvp. */
          if (asprintf (&buf, "%.*s/%s", dlen ? (int) dlen : 1, dlen ? dir : ".", file) < 0)
            return shim_error_errno (err, "process.args[0]");
          if (stat (buf, &st) == 0 && S_ISREG (st.st_mode) && access (buf, X_OK) == 0)
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
  if (util_write_file_at (AT_FDCWD, "/proc/self/oom_score_adj", buf, (size_t) n, err) < 0)
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

/* The process starts with no signal blocked or ignored. */
static int
reset_signals (shim_error_t *err)
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
static int
setup_terminal (const struct shim_process *p, int console_fd, int sync_fd, shim_error_t *err)
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

/* Wait for the runtime's go-ahead; its text is the state JSON. */
static int
wait_go (int sync_fd, char **state_json, shim_error_t *err)
{
  static struct sync_msg m;
  ssize_t r = sync_recv (sync_fd, &m, NULL);
  if (r < 0)
    return shim_error_errno (err, "read from the runtime");
  if (r == 0 || m.type != SYNC_GO)
    return shim_error_plain (err, ECANCELED, "the runtime gave up on the container");
  *state_json = m.text;
  return 0;
}

/* The exec itself.  Only stdio and, for socket activation, LISTEN_FDS
 * reach the process.  CFG->process is the process to run. */
static int
exec_process (const struct shim_config *cfg, struct security_state *sec, const char *exe, shim_error_t *err)
{
  const struct shim_process *p = &cfg->process;
  unsigned int keep = 0;
  const char *listen = env_get (p->env, "LISTEN_FDS");

  if (listen)
    {
      uint64_t n;
      if (util_parse_u64 (listen, &n) == 0 && n < 1024)
        keep = (unsigned int) n;
    }
  if (syscall (SYS_close_range, 3 + keep, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    return shim_error_errno (err, "close_range");
  /* Capabilities, then the seccomp filter: nothing after it but the exec. */
  if (security_apply (cfg, sec, err) < 0)
    return -1;
  execve (exe, p->args, p->env ? p->env : (char *[]){ NULL });
  return shim_error_errno (err, "process.args[0] \"%s\": exec", p->args[0]);
}

/* Where init's errors go: the runtime's sync socket until `start`, then the
 * connection from `start`. */
static int report_fd = -1;

static int
child_setup (const struct shim_config *cfg, const struct container_opts *opts, const struct ns_fds *ns,
             int sync_fd, shim_error_t *err)
{
  const struct shim_process *p = &cfg->process;
  struct rootfs_opts ro = { .no_pivot = opts->no_pivot };
  __attribute__ ((cleanup (security_state_release))) struct security_state sec = SECURITY_STATE_INIT;
  const struct shim_namespace *net;
  cleanup_free char *exe = NULL;
  char *state_json = (char *) "";
  cleanup_free char *start_json = NULL;

  if (reset_signals (err) < 0)
    return -1;
  /* Die with the runtime instead of lingering if it is killed while
   * setting up (and, for `run`, at any time). */
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

  /* Still the host's filesystem: LSM and seccomp listener checks need it. */
  if (security_prepare (cfg, opts->id, &sec, err) < 0)
    return -1;
  umask (0);
  if (rootfs_mount (cfg, err) < 0)
    return -1;
  if (opts->create_runtime)
    {
      if (sync_send (sync_fd, SYNC_CREATE_RUNTIME, 0, NULL, -1) < 0)
        return shim_error_errno (err, "write to the runtime");
      if (wait_go (sync_fd, &state_json, err) < 0)
        return -1;
      /* Still the runtime's root, in the container's namespaces. */
      if (oci_hooks_run (cfg, HOOK_CREATE_CONTAINER, state_json, err) < 0)
        return -1;
    }
  if (rootfs_enter (cfg, &ro, err) < 0 || rootfs_finalize (cfg, err) < 0)
    return -1;
  umask (p->has_umask ? p->umask : 022);

  if (rootfs_chdir (p->cwd, err) < 0)
    return -1;
  if (p->terminal && setup_terminal (p, opts->console_fd, sync_fd, err) < 0)
    return -1;
  if (apply_user (p, err) < 0)
    return -1;
  if (find_executable (p, &exe, err) < 0)
    return -1;
  /* Changing the uid or gid cleared the parent-death signal: set it again,
   * or a container of another user outlives a killed runtime.  A detached
   * init must outlive the runtime instead: its caller's subreaper (conmon,
   * containerd-shim) becomes its parent. */
  if (prctl (PR_SET_PDEATHSIG, opts->detach ? 0 : SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  if (p->no_new_privileges && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return shim_error_errno (err, "process.noNewPrivileges: prctl");

  if (sync_send (sync_fd, SYNC_READY, 0, NULL, -1) < 0)
    return shim_error_errno (err, "write to the runtime");
  if (opts->exec_listen_fd >= 0)
    {
      ssize_t r;
      /* Blocked here between create and start.  Only `start` connects: the
       * socket is in the runtime's state dir, out of the container's view. */
      int conn = accept4 (opts->exec_listen_fd, NULL, NULL, SOCK_CLOEXEC);
      if (conn < 0)
        return shim_error_errno (err, "wait for start: accept");
      report_fd = conn;
      /* One message: the state as `start` sees it (status "created"), for
       * the startContainer hooks. */
      do
        r = recv (conn, NULL, 0, MSG_PEEK | MSG_TRUNC);
      while (r < 0 && errno == EINTR);
      if (r < 1 || (start_json = malloc ((size_t) r + 1)) == NULL)
        return shim_error_plain (err, ECANCELED, "start went away before releasing the container");
      do
        r = recv (conn, start_json, (size_t) r, 0);
      while (r < 0 && errno == EINTR);
      if (r < 1)
        return shim_error_plain (err, ECANCELED, "start went away before releasing the container");
      start_json[r] = '\0';
      if (start_json[0])
        state_json = start_json;
    }
  if (oci_hooks_run (cfg, HOOK_START_CONTAINER, state_json, err) < 0)
    return -1;

  return exec_process (cfg, &sec, exe, err);
}

static _Noreturn void
child_fail (shim_error_t *err)
{
  sync_send (report_fd, SYNC_ERROR, *err ? (*err)->status : 0, *err ? (*err)->msg : "failed", -1);
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

/* The runtime's side of the conversation, until init has exec'd (EOF) or,
 * with an exec socket, is ready and waits for start. */
static int
converse (const struct container_opts *opts, pid_t pid, int fd, struct container_proc *out,
          shim_error_t *err)
{
  static struct sync_msg m;
  for (;;)
    {
      int passed = -1;
      ssize_t r = sync_recv (fd, &m, &passed);
      if (r < 0)
        return shim_error_errno (err, "read from the container's init");
      if (r == 0)
        return 0;
      switch (m.type)
        {
        case SYNC_ERROR:
          shim_error (err, 0, "%s", m.text);
          (*err)->status = m.status;
          return -1;
        case SYNC_CREATE_RUNTIME:
          {
            cleanup_free char *json = NULL;
            if (opts->create_runtime (pid, opts->opaque, &json, err) < 0)
              return -1;
            if (sync_send (fd, SYNC_GO, 0, json, -1) < 0)
              return shim_error_errno (err, "write to the container's init");
            break;
          }
        case SYNC_PTY:
          if (out->pty_master >= 0)
            close (out->pty_master);
          out->pty_master = passed;
          break;
        case SYNC_READY:
          if (opts->exec_listen_fd >= 0)
            return 0;
          break;
        default:
          return shim_error_plain (err, EPROTO, "init sent message %d", m.type);
        }
    }
}

/* A child that failed on the way (and said where, or we did): nothing of it
 * may survive. */
static void
reap_failed (int pidfd, struct container_proc *out)
{
  siginfo_t si;
  syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  waitid (P_PIDFD, (id_t) pidfd, &si, WEXITED);
  close (pidfd);
  if (out && out->pty_master >= 0)
    close (out->pty_master);
  if (out)
    out->pty_master = -1;
}

/* clone3 a child with a pidfd into the pid namespace PID_NS_FD (-1: ours)
 * and the cgroup CGROUP_FD (-1: ours), with FLAGS (CLONE_NEW*) on top.
 * Joining a pid namespace only applies to children: it is done around the
 * clone and undone right after.  Returns the pid, 0 in the child; -1 with
 * nothing left behind. */
static pid_t
clone_into (int pid_ns_fd, int cgroup_fd, uint64_t flags, int *pidfd, shim_error_t *err)
{
  cleanup_close int own_pid_ns = -1;
  struct clone_args ca = {
    .flags = flags | CLONE_PIDFD,
    .pidfd = (uint64_t) (uintptr_t) pidfd,
    .exit_signal = SIGCHLD,
  };
  pid_t pid;
  int saved;

  if (pid_ns_fd >= 0)
    {
      own_pid_ns = open ("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
      if (own_pid_ns < 0)
        return shim_error_errno (err, "open /proc/self/ns/pid");
      if (setns (pid_ns_fd, CLONE_NEWPID) < 0)
        return shim_error_errno (err, "join the container's pid namespace");
    }
  if (cgroup_fd >= 0)
    {
      ca.flags |= CLONE_INTO_CGROUP;
      ca.cgroup = (uint64_t) cgroup_fd;
    }
  pid = (pid_t) syscall (SYS_clone3, &ca, sizeof (ca));
  if (pid == 0)
    return 0;
  saved = errno;
  if (own_pid_ns >= 0 && setns (own_pid_ns, CLONE_NEWPID) < 0)
    {
      shim_error_errno (err, "return to the runtime's pid namespace");
      if (pid > 0)
        reap_failed (*pidfd, NULL);
      return -1;
    }
  if (pid < 0)
    return shim_error (err, saved, "clone3");
  return pid;
}

int
container_spawn (const struct shim_config *cfg, const struct container_opts *opts,
                 struct container_proc *out, shim_error_t *err)
{
  __attribute__ ((cleanup (close_ns_fds))) struct ns_fds ns = { 0 };
  cleanup_close int parent_end = -1;
  cleanup_close int child_end = -1;
  int pid_ns_fd = -1, pidfd = -1, sync[2];
  const struct shim_namespace *user = shim_config_namespace (cfg, CLONE_NEWUSER);
  bool join_user = user != NULL && user->path != NULL;
  uint64_t flags = 0;
  pid_t pid;
  size_t i;

  out->pty_master = -1;
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
        flags |= (uint64_t) type;
    }

  pid = clone_into (pid_ns_fd, opts->cgroup_fd, flags, &pidfd, err);
  if (pid == 0)
    {
      shim_error_t cerr = NULL;
      close (parent_end);
      report_fd = child_end;
      child_setup (cfg, opts, &ns, child_end, &cerr);
      child_fail (&cerr);
    }
  if (pid < 0)
    return -1;
  if (userns_write_maps (pid, parent_end, cfg, err) == 0)
    {
      /* EOF on parent_end must mean the child closed its end. */
      close (steal_fd (&child_end));
      if (converse (opts, pid, parent_end, out, err) == 0)
        {
          out->pid = pid;
          out->pidfd = pidfd;
          return 0;
        }
    }
  reap_failed (pidfd, out);
  return -1;
}

int
container_release (int dirfd, const char *state_json, shim_error_t *err)
{
  static struct sync_msg m;
  cleanup_close int s = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  ssize_t r;

  if (s < 0)
    return shim_error_errno (err, "socket");
  /* Through the dir fd: a long --root or id would not fit sun_path. */
  snprintf (sa.sun_path, sizeof (sa.sun_path), "/proc/self/fd/%d/%s", dirfd, STATE_EXEC_SOCK);
  if (connect (s, (struct sockaddr *) &sa, sizeof (sa)) < 0)
    return shim_error_errno (err, "connect to the container's init (%s)", STATE_EXEC_SOCK);
  if (state_json == NULL)
    state_json = "";
  if (send (s, state_json, strlen (state_json) + 1, MSG_NOSIGNAL) < 0)
    return shim_error_errno (err, "release the container's init");
  r = sync_recv (s, &m, NULL);
  if (r < 0)
    return shim_error_errno (err, "read from the container's init");
  if (r > 0 && m.type == SYNC_ERROR)
    {
      shim_error (err, 0, "%s", m.text);
      (*err)->status = m.status;
      return -1;
    }
  return 0;
}

static const struct
{
  int type;
  const char *name;
} ns_names[] = {
  { CLONE_NEWUSER, "user" }, { CLONE_NEWIPC, "ipc" },       { CLONE_NEWUTS, "uts" },
  { CLONE_NEWNET, "net" },   { CLONE_NEWCGROUP, "cgroup" }, { CLONE_NEWNS, "mnt" },
};

/* The exec'd process's side: init's namespaces (user first, mount last,
 * in ns_names' order), its root, then the process's own settings. */
static int
exec_child (const struct shim_config *cfg, const struct shim_process *p, const struct exec_opts *o,
            const int *fds, int rootfd, int sync_fd, shim_error_t *err)
{
  __attribute__ ((cleanup (security_state_release))) struct security_state sec = SECURITY_STATE_INIT;
  /* The container's config with this process: the same seccomp filter and
   * LSM rules as init, this process's capabilities. */
  struct shim_config c = *cfg;
  cleanup_free char *exe = NULL;
  size_t i;

  c.process = *p;

  if (reset_signals (err) < 0)
    return -1;
  if (!o->detach && prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  if (setsid () < 0)
    return shim_error_errno (err, "setsid");
  /* Before the namespaces: a seccomp listener socket is a host path. */
  if (security_prepare (&c, o->id, &sec, err) < 0)
    return -1;
  for (i = 0; i < sizeof (ns_names) / sizeof (ns_names[0]); i++)
    if (fds[i] >= 0 && setns (fds[i], ns_names[i].type) < 0)
      return shim_error_errno (err, "join the container's %s namespace", ns_names[i].name);
  /* The container's root as init sees it, with pivot_root or chroot. */
  if (fchdir (rootfd) < 0 || chroot (".") < 0)
    return shim_error_errno (err, "enter the container's root");
  if (rootfs_chdir (p->cwd, err) < 0)
    return -1;
  if (apply_rlimits (p, err) < 0)
    return -1;
  if (p->terminal && setup_terminal (p, o->console_fd, sync_fd, err) < 0)
    return -1;
  if (apply_user (p, err) < 0)
    return -1;
  if (!o->detach && prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  if (p->no_new_privileges && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return shim_error_errno (err, "process.noNewPrivileges: prctl");
  if (find_executable (p, &exe, err) < 0)
    return -1;
  return exec_process (&c, &sec, exe, err);
}

static void
close_fd_array (int (*fds)[6])
{
  size_t i;
  for (i = 0; i < 6; i++)
    if ((*fds)[i] >= 0)
      close ((*fds)[i]);
}

int
container_exec (const struct shim_config *cfg, const struct shim_process *p, pid_t init_pid,
                const struct exec_opts *o, struct container_proc *out, shim_error_t *err)
{
  __attribute__ ((cleanup (close_fd_array))) int fds[6] = { -1, -1, -1, -1, -1, -1 };
  cleanup_close int rootfd = -1, pidns = -1, parent_end = -1, child_end = -1;
  struct container_opts copts = { .exec_listen_fd = -1, .console_fd = -1 };
  char path[64];
  int pidfd = -1, sv[2];
  pid_t pid;
  size_t i;

  out->pty_master = -1;
  /* Only the namespaces the container has of its own are joined; a
   * namespace config.json did not list is the host's, as for init. */
  for (i = 0; i < sizeof (ns_names) / sizeof (ns_names[0]); i++)
    if (shim_config_namespace (cfg, ns_names[i].type))
      {
        snprintf (path, sizeof (path), "/proc/%d/ns/%s", (int) init_pid, ns_names[i].name);
        fds[i] = open (path, O_RDONLY | O_CLOEXEC);
        if (fds[i] < 0)
          return shim_error_errno (err, "open `%s`", path);
      }
  snprintf (path, sizeof (path), "/proc/%d/root", (int) init_pid);
  rootfd = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return shim_error_errno (err, "open `%s`", path);
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return shim_error_errno (err, "socketpair");
  parent_end = sv[0];
  child_end = sv[1];
  /* Until the exec, the child is this binary (the sealed copy, see
   * security_run_sealed_copy) inside the container's pid namespace.  Not
   * dumpable either (inherited by the child, reset by its execve), as
   * defense in depth for its /proc/PID/exe, mem and fds.  Measured without
   * it: a container without CAP_SYS_PTRACE is refused anyway, because the
   * kernel's ptrace check wants the caller's permitted set to cover the
   * runtime's. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return shim_error_errno (err, "prctl(PR_SET_DUMPABLE)");
  if (shim_config_namespace (cfg, CLONE_NEWPID))
    {
      snprintf (path, sizeof (path), "/proc/%d/ns/pid", (int) init_pid);
      pidns = open (path, O_RDONLY | O_CLOEXEC);
      if (pidns < 0)
        return shim_error_errno (err, "open `%s`", path);
    }
  pid = clone_into (pidns, o->cgroup_fd, 0, &pidfd, err);
  if (pid == 0)
    {
      shim_error_t cerr = NULL;
      close (parent_end);
      report_fd = child_end;
      exec_child (cfg, p, o, fds, rootfd, child_end, &cerr);
      child_fail (&cerr);
    }
  if (pid < 0)
    return -1;
  close (steal_fd (&child_end));
  if (converse (&copts, pid, parent_end, out, err) == 0)
    {
      out->pid = pid;
      out->pidfd = pidfd;
      return 0;
    }
  reap_failed (pidfd, out);
  return -1;
}
