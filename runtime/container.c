/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/container.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/fault.h"
#include "common/util.h"
#include "runtime/oci_hooks.h"
#include "runtime/process_internal.h"
#include "runtime/rootfs.h"
#include "runtime/security.h"
#include "runtime/sync_internal.h"
#include "runtime/userns.h"

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
    return shim_error_errno (err, "linux.namespaces: unshare the namespaces made after the clone");
  return 0;
}

/* The detached bind mount sources the runtime sent (userns.c). */
struct mount_fds
{
  int *fds;
  size_t n;
};

static void
close_mount_fds (struct mount_fds *m)
{
  size_t i;
  for (i = 0; m->fds && i < m->n; i++)
    if (m->fds[i] >= 0)
      close (m->fds[i]);
  free (m->fds);
}

/* init's side, up to the exec.  Its errors go to *report_fd: the
 * runtime's sync socket until `start`, then the connection from `start`. */
static int
child_setup (const struct shim_config *cfg, const struct container_opts *opts, const struct ns_fds *ns,
             int sync_fd, int *report_fd, shim_error_t *err)
{
  const struct shim_process *p = &cfg->process;
  struct rootfs_opts ro = { .no_pivot = opts->no_pivot };
  __attribute__ ((cleanup (security_state_release))) struct security_state sec = SECURITY_STATE_INIT;
  const struct shim_namespace *net;
  cleanup_free char *exe = NULL;
  char *state_json = (char *) "";
  cleanup_free char *start_json = NULL;
  __attribute__ ((cleanup (close_mount_fds))) struct mount_fds mfds = { 0 };
  size_t i;

  if (process_reset_signals (err) < 0)
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

  mfds.n = cfg->n_mounts;
  mfds.fds = malloc ((mfds.n + 1) * sizeof (int));
  if (mfds.fds == NULL)
    return shim_error_errno (err, "mounts");
  for (i = 0; i < mfds.n; i++)
    mfds.fds[i] = -1;
  if (userns_wait_maps (sync_fd, cfg, mfds.fds, err) < 0)
    return -1;
  if (join_namespaces (cfg, ns, err) < 0)
    return -1;

  /* Still the host's /proc: the container's may not even be mounted. */
  if (p->has_oom_score_adj && write_oom_score_adj (p->oom_score_adj, err) < 0)
    return -1;
  if (process_apply_rlimits (p, err) < 0)
    return -1;
  if (cfg->hostname && sethostname (cfg->hostname, strlen (cfg->hostname)) < 0)
    return shim_error_errno (err, "hostname: sethostname `%s`", cfg->hostname);
  net = config_namespace (cfg, CLONE_NEWNET);
  if (net && net->path == NULL && loopback_up (err) < 0)
    return -1;

  /* Still the host's filesystem: LSM and seccomp listener checks need it. */
  if (security_prepare (cfg, opts->id, &sec, err) < 0)
    return -1;
  umask (0);
  if (rootfs_mount (cfg, mfds.fds, err) < 0)
    return -1;
  if (opts->create_runtime)
    {
      if (sync_send (sync_fd, SYNC_CREATE_RUNTIME, 0, NULL, -1) < 0)
        return shim_error_errno (err, "write to the runtime");
      if (sync_wait_go (sync_fd, &state_json, err) < 0)
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
  if (p->terminal && process_setup_terminal (p, opts->console_fd, sync_fd, err) < 0)
    return -1;
  if (security_drop_bounding (cfg, err) < 0 || process_apply_user (p, err) < 0)
    return -1;
  if (process_find_executable (p, &exe, err) < 0)
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
      if (sync_wait_start (opts->exec_listen_fd, report_fd, &start_json, err) < 0)
        return -1;
      if (start_json[0])
        state_json = start_json;
    }
  /* The startContainer hooks run as the process will: its capabilities
   * and its seccomp filter in force (runc does the same), so a hook
   * cannot do what the filter forbids the container. */
  if (process_exec_prepare (cfg, &sec, err) < 0)
    return -1;
  if (oci_hooks_run (cfg, HOOK_START_CONTAINER, state_json, err) < 0)
    return -1;

  return process_exec (cfg, &sec, exe, err);
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
  __attribute__ ((cleanup (cgroup_join_close))) struct cgroup_join join = { .n = 0 };
  cleanup_close int parent_end = -1;
  cleanup_close int child_end = -1;
  int pid_ns_fd = -1, pidfd = -1, sync[2];
  const struct shim_namespace *user = config_namespace (cfg, CLONE_NEWUSER);
  bool join_user = user != NULL && user->path != NULL;
  bool gate = sync_gate_needed (opts->cgroup);
  uint64_t flags = 0;
  pid_t pid;
  size_t i;

  out->pty_master = -1;
  if (open_ns_fds (cfg, &ns, &pid_ns_fd, err) < 0 || cgroup_join_open (opts->cgroup, &join, err) < 0)
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
       * namespace: clone3 would make them the host's.  On cgroup v1 the
       * cgroup namespace too, once the child is in the container's
       * cgroups (cgroup_join_self, sync_wait_entered), as runc does:
       * cloned with it, its root in the v1 hierarchies was the runtime's
       * cgroup, and the container read /../../shim/ID in /proc/self/cgroup. */
      if (join_user || (type == CLONE_NEWCGROUP && (gate || cgroup_join_pending (&join))))
        ns.unshare_flags |= type;
      else
        flags |= (uint64_t) type;
    }

  pid = process_clone (pid_ns_fd, opts->cgroup_fd, flags, &pidfd, err);
  if (pid == 0)
    {
      shim_error_t cerr = NULL;
      int report_fd = child_end;
      close (parent_end);
      if (cgroup_join_self (&join, &cerr) == 0 && sync_wait_entered (child_end, gate, &cerr) == 0)
        child_setup (cfg, opts, &ns, child_end, &report_fd, &cerr);
      sync_report_error (report_fd, &cerr);
      _exit (1);
    }
  if (pid < 0)
    return -1;
  cgroup_join_close (&join);
  if (sync_enter_cgroup (parent_end, gate, opts->cgroup, pid, opts->cgroup_entered, opts->opaque, err) < 0)
    {
      process_reap_failed (pidfd, NULL);
      return -1;
    }
  if (userns_write_maps (pid, parent_end, cfg, err) == 0)
    {
      /* EOF on parent_end must mean the child closed its end. */
      close (steal_fd (&child_end));
      if (sync_converse (parent_end, -1, pid, opts->exec_listen_fd >= 0, opts->create_runtime, opts->opaque,
                         &out->pty_master, err)
          == 0)
        {
          out->pid = pid;
          out->pidfd = pidfd;
          return 0;
        }
    }
  process_reap_failed (pidfd, &out->pty_master);
  return -1;
}
