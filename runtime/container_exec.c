/* SPDX-License-Identifier: Apache-2.0 */
/* `exec`: a new process in the namespaces, root and cgroup of a running
 * container, set up as init's own process is (process.c). */
#include "runtime/container.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/fault.h"
#include "common/util.h"
#include "runtime/process_internal.h"
#include "runtime/rootfs.h"
#include "runtime/security.h"
#include "runtime/sync_internal.h"

static const struct
{
  int type;
  const char *name;
} ns_names[] = {
  { CLONE_NEWUSER, "user" }, { CLONE_NEWIPC, "ipc" },       { CLONE_NEWUTS, "uts" },
  { CLONE_NEWNET, "net" },   { CLONE_NEWCGROUP, "cgroup" }, { CLONE_NEWNS, "mnt" },
};

static bool
parent_gone (int sync_fd)
{
  struct pollfd p = { .fd = sync_fd, .events = POLLIN };
  return poll (&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
}

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

  if (process_reset_signals (err) < 0)
    return -1;
  if (!o->detach && prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  if (setsid () < 0)
    return shim_error_errno (err, "setsid");
  /* Before the namespaces: a seccomp listener socket is a host path. */
  if (security_prepare (&c, o->id, &sec, err) < 0 || security_drop_bounding (&c, err) < 0)
    return -1;
  for (i = 0; i < sizeof (ns_names) / sizeof (ns_names[0]); i++)
    if (fds[i] >= 0 && setns (fds[i], ns_names[i].type) < 0)
      return shim_error_errno (err, "join the container's %s namespace", ns_names[i].name);
  /* The container's root as init sees it, with pivot_root or chroot. */
  if (fchdir (rootfd) < 0 || chroot (".") < 0)
    return shim_error_errno (err, "enter the container's root");
  if (rootfs_chdir (p->cwd, err) < 0)
    return -1;
  if (process_apply_rlimits (p, err) < 0)
    return -1;
  if (p->terminal && process_setup_terminal (p, o->console_fd, sync_fd, err) < 0)
    return -1;
  if (process_apply_user (p, err) < 0)
    return -1;
  if (!o->detach && prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  /* Cloned into a paused container, we ran only once it was thawed: a
   * `shim exec` killed meanwhile sent no death signal, and its end of the
   * sync socket is closed. */
  if (!o->detach && parent_gone (sync_fd))
    return shim_error_plain (err, ECANCELED, "`shim exec` went away before the process started");
  if (p->no_new_privileges && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return shim_error_errno (err, "process.noNewPrivileges: prctl");
  if (process_find_executable (p, &exe, err) < 0)
    return -1;
  return process_exec (&c, &sec, exe, err);
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
  __attribute__ ((cleanup (cgroup_join_close))) struct cgroup_join join = { .n = 0 };
  cleanup_close int rootfd = -1, pidns = -1, parent_end = -1, child_end = -1;
  char path[64];
  int pidfd = -1, sv[2];
  bool gate = sync_gate_needed (o->cgroup);
  pid_t pid;
  size_t i;

  out->pty_master = -1;
  /* Only the namespaces the container has of its own are joined; a
   * namespace config.json did not list is the host's, as for init. */
  for (i = 0; i < sizeof (ns_names) / sizeof (ns_names[0]); i++)
    if (config_namespace (cfg, ns_names[i].type))
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
  /* Until the exec, the child is this binary (through a read-only mount,
   * or a sealed copy: security_reexec_protected) inside the container's
   * pid namespace.  Not
   * dumpable either (inherited by the child, reset by its execve), as
   * defense in depth for its /proc/PID/exe, mem and fds.  Measured without
   * it: a container without CAP_SYS_PTRACE is refused anyway, because the
   * kernel's ptrace check wants the caller's permitted set to cover the
   * runtime's. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return shim_error_errno (err, "prctl(PR_SET_DUMPABLE)");
  if (config_namespace (cfg, CLONE_NEWPID))
    {
      snprintf (path, sizeof (path), "/proc/%d/ns/pid", (int) init_pid);
      pidns = open (path, O_RDONLY | O_CLOEXEC);
      if (pidns < 0)
        return shim_error_errno (err, "open `%s`", path);
    }
  if (cgroup_join_open (o->cgroup, &join, err) < 0)
    return -1;
  if (o->lock_fd && *o->lock_fd >= 0)
    close (steal_fd (o->lock_fd));
  pid = process_clone (pidns, o->cgroup_fd, 0, &pidfd, err);
  if (pid == 0)
    {
      shim_error_t cerr = NULL;
      close (parent_end);
      if (cgroup_join_self (&join, &cerr) == 0 && sync_wait_entered (child_end, gate, &cerr) == 0)
        exec_child (cfg, p, o, fds, rootfd, child_end, &cerr);
      sync_report_error (child_end, &cerr);
      _exit (1);
    }
  if (pid < 0)
    return -1;
  cgroup_join_close (&join);
  if (sync_enter_cgroup (parent_end, gate, o->cgroup, pid, NULL, NULL, err) < 0)
    {
      process_reap_failed (pidfd, NULL);
      return -1;
    }
  close (steal_fd (&child_end));
  if (sync_converse (parent_end, o->sigfd, pid, false, NULL, NULL, &out->pty_master, err) == 0)
    {
      out->pid = pid;
      out->pidfd = pidfd;
      return 0;
    }
  process_reap_failed (pidfd, &out->pty_master);
  if ((*err)->status == EINTR)
    return shim_error_prefix (err, "exec");
  return -1;
}
