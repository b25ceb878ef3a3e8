/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/launch_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/fault.h"
#include "common/util.h"
#include "evidence/mark.h"
#include "runtime/lifecycle_internal.h"
#include "runtime/oci_hooks.h"
#include "runtime/supervise.h"
#include "runtime/sync_internal.h"
#include "evidence/watcher.h"

static int
copy_annotations (const struct shim_config *cfg, struct shim_state *st, shim_error_t *err)
{
  size_t i;
  if (cfg->n_annotations == 0)
    return 0;
  st->annotations = calloc (cfg->n_annotations, sizeof (*st->annotations));
  if (st->annotations == NULL)
    return shim_error_errno (err, "annotations");
  for (i = 0; i < cfg->n_annotations; i++)
    {
      st->annotations[i].key = strdup (cfg->annotations[i].key);
      st->annotations[i].value = strdup (cfg->annotations[i].value);
      st->n_annotations++;
      if (!st->annotations[i].key || !st->annotations[i].value)
        return shim_error_errno (err, "annotations");
    }
  return 0;
}

/* The bundle's config.json as it is now, for exec and the hooks of later
 * commands: the bundle may change or go away after create. */
static int
save_config (int dirfd, const char *bundle, shim_error_t *err)
{
  cleanup_close int bfd = open (bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_free char *json = NULL;
  size_t len;

  if (bfd < 0)
    return shim_error_errno (err, "bundle `%s`", bundle);
  if (util_read_file_at (bfd, "config.json", &json, &len, err) < 0)
    return -1;
  return util_write_file_atomic_at (dirfd, STATE_CONFIG, json, len, 0600, err);
}

/* The container owns its cgroup when runc (and runtime-spec 1.3) would
 * give it: a new user namespace, a cgroup namespace of its own and
 * /sys/fs/cgroup mounted read-write from source `cgroup`.  The owner is
 * the host uid of process.user.uid; otherwise CGROUP_NO_OWNER. */
static uid_t
delegated_owner (const struct shim_config *cfg)
{
  const struct shim_namespace *u = config_namespace (cfg, CLONE_NEWUSER);
  const struct shim_namespace *cg = config_namespace (cfg, CLONE_NEWCGROUP);
  uint32_t h;
  size_t i;

  if (u == NULL || u->path || cg == NULL || cg->path)
    return CGROUP_NO_OWNER;
  for (i = 0; i < cfg->n_mounts; i++)
    {
      const struct shim_mount *m = &cfg->mounts[i];
      if (m->source && strcmp (m->source, "cgroup") == 0
          && (strcmp (m->destination, "/sys/fs/cgroup") == 0 || strcmp (m->destination, "/sys/fs/cgroup/") == 0)
          && !(m->flags & MS_RDONLY))
        break;
    }
  if (i == cfg->n_mounts || config_idmap_to_host (cfg->uid_mappings, cfg->n_uid_mappings, cfg->process.uid, &h) < 0)
    return CGROUP_NO_OWNER;
  return h;
}

int
launch_prepare (const struct runtime_ctx *ctx, const struct launch_opts *o, struct launch *l, shim_error_t *err)
{
  struct shim_config *cfg;
  struct stat sb;

  *l = (struct launch) LAUNCH_INIT;
  if (state_validate_id (o->c.id, err) < 0)
    return -1;
  if (config_load (o->c.bundle, &l->cfg, lifecycle_config_warning, NULL, err) < 0)
    return -1;
  cfg = l->cfg;
  if (o->c.has_memory)
    {
      cfg->has_resources = true;
      cfg->resources.has_memory_limit = true;
      cfg->resources.memory_limit = o->c.memory;
      /* After the parse's own check: the flag's limit against the
       * config's swap, before the kernel refuses it with a bare EINVAL. */
      if (config_memory_check (&cfg->resources, "linux.resources.memory", "--memory", err) < 0)
        return -1;
    }
  cfg->process.preserve_fds = o->c.preserve_fds;
  if (stat (cfg->root_path, &sb) < 0)
    return shim_error_errno (err, "root.path `%s`", cfg->root_path);
  if (!S_ISDIR (sb.st_mode))
    return shim_error_plain (err, ENOTDIR, "root.path `%s`: not a directory", cfg->root_path);
  if (cfg->process.terminal && o->detach && o->c.console_socket == NULL)
    return shim_error_plain (err, EINVAL,
                             "process.terminal: a detached container needs --console-socket to hand its "
                             "terminal to");
  if (cfg->process.terminal && !o->detach && o->c.console_socket == NULL
      && supervise_need_terminal ("process.terminal", err) < 0)
    return -1;

  l->dirfd = state_create (ctx->root, o->c.id, err);
  if (l->dirfd < 0)
    return -1;
  fault_point ("create:after-state-dir");
  l->st.id = strdup (o->c.id);
  l->st.bundle = strdup (cfg->bundle);
  l->st.rootfs = strdup (cfg->root_path);
  {
    char now[UTIL_RFC3339_LEN];
    util_rfc3339_now (now, sizeof now);
    l->st.created = strdup (now);
  }
  if (!l->st.id || !l->st.bundle || !l->st.rootfs || !l->st.created)
    return shim_error_errno (err, "container state");
  l->st.owner = getuid ();
  l->st.foreground = !o->detach;
  l->st.no_pivot = o->c.no_pivot;
  {
    int i;
    for (i = 0; i < HOOK_N_STAGES; i++)
      if (cfg->hooks[i].n)
        l->st.hook_stages |= 1u << i;
  }
  if (copy_annotations (cfg, &l->st, err) < 0)
    return -1;
  if (o->detach && save_config (l->dirfd, o->c.bundle, err) < 0)
    return -1;
  {
    struct cgroup_spec spec = { .cgroups_path = cfg->cgroups_path,
                                .id = o->c.id,
                                .systemd = ctx->systemd_cgroup,
                                .allow_unenforced = o->c.allow_unenforced,
                                .resources = &cfg->resources,
                                .owner = delegated_owner (cfg),
                                .rootless = util_rootless () };
    if (cgroup_create (&spec, &l->cg, err) < 0)
      return -1;
  }
  fault_point ("create:after-cgroup");
  log_msg (LOG_DEBUG, "container %s: cgroup %s", o->c.id, l->cg.path ? l->cg.path : "(none)");
  if ((l->cg.path && (l->st.cgroup_path = strdup (l->cg.path)) == NULL)
      || (l->cg.v1_paths && (l->st.cgroup_v1_paths = strdup (l->cg.v1_paths)) == NULL))
    return shim_error_errno (err, "container state");
  l->st.cgroup_created_depth = l->cg.created ? l->cg.created_depth : 0;
  if (l->cg.created && l->st.cgroup_created_depth == 0)
    l->st.cgroup_created_depth = 1;
  l->st.memory_limit_enforced = l->cg.memory_limit_enforced;
  return 0;
}

static int
record_pid (struct launch *l, pid_t pid, shim_error_t *err)
{
  l->st.pid = pid;
  return state_proc_start_time (pid, &l->st.pid_start, NULL, err);
}

/* container_opts.create_runtime: init has its namespaces and mounts. */
static int
create_runtime (pid_t pid, void *opaque, char **state_json, shim_error_t *err)
{
  struct launch *l = opaque;

  if (record_pid (l, pid, err) < 0 || state_write (l->dirfd, &l->st, err) < 0)
    return -1;
  if (lifecycle_state_json (&l->st, STATUS_CREATING, NULL, state_json, err) < 0)
    return -1;
  if (oci_hooks_run (l->cfg, HOOK_PRESTART, *state_json, err) < 0
      || oci_hooks_run (l->cfg, HOOK_CREATE_RUNTIME, *state_json, err) < 0)
    return -1;
  return 0;
}

static bool
has_hooks (const struct shim_config *cfg, enum shim_hook_stage s)
{
  return cfg->hooks[s].n > 0;
}

/* The watcher ends with the state dir too, whatever the cgroup says:
 * `delete` may come before the kernel tells us the cgroup emptied.  An
 * inotify fd that sees removals in the state dir, or -1 (the watcher then
 * ends with the cgroup only), opened by the watcher itself (its
 * watcher_policy.stop_open); *GONE when a `delete` came before the
 * watch. */
static int
state_delete_watch (int dirfd, bool *gone)
{
  int ino = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
  char self[64];

  snprintf (self, sizeof (self), "/proc/self/fd/%d", dirfd);
  if (ino >= 0 && inotify_add_watch (ino, self, IN_DELETE) < 0)
    {
      close (ino);
      ino = -1;
    }
  *gone = faccessat (dirfd, STATE_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
  return ino;
}

/* The signals `shim kill` recorded, for the watcher's marker verdict.
 * Without the lock: the watcher must not wait on a `kill` in progress, and
 * its later verdicts read the record again. */
static int
launch_signals (int dirfd, uint64_t *sent)
{
  return state_signals_read (dirfd, false, sent);
}

/* Whether the inotify fd on the state dir saw the state file removed
 * (`delete`).  A watch on the directory itself would not do: measured on
 * 6.18, IN_DELETE_SELF is not sent while the watcher holds the directory
 * open. */
static bool
state_file_deleted (int ino, void *arg)
{
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  ssize_t n;

  (void) arg;
  while ((n = read (ino, buf, sizeof (buf))) > 0)
    {
      char *p;
      for (p = buf; p < buf + n; p += sizeof (struct inotify_event) + ((struct inotify_event *) p)->len)
        {
          const struct inotify_event *e = (const struct inotify_event *) p;
          if (e->len && strcmp (e->name, STATE_FILE) == 0)
            return true;
        }
    }
  return false;
}

/* Arm the detached watcher on the container's cgroup; on cgroup v1 it
 * also emulates memory.oom.group (evidence/monitor.h). */
static int
arm_watcher (struct launch *l, shim_error_t *err)
{
  if (watcher_arm_cgroup (&l->watcher, &l->cg, 1, cgroup_memory_path (&l->cg), err) < 0)
    return shim_error_prefix (err, "arm the watcher");
  l->watcher_armed = true;
  return monitor_emulate_oom_group (&l->watcher.m, &l->cg, &l->cfg->resources, err);
}

/* container_opts.cgroup_entered: init is in its cgroup and waits.  What
 * could not be armed before init existed (the systemd manager's scope is
 * made with init's pid) is armed now, before init runs anything. */
static int
cgroup_entered (void *opaque, shim_error_t *err)
{
  struct launch *l = opaque;

  if (l->arm_on_enter && l->cg.dirfd >= 0)
    {
      if (arm_watcher (l, err) < 0)
        return -1;
    }
  l->arm_on_enter = false;
  return l->cgroup_ready ? l->cgroup_ready (l, l->cgroup_ready_arg, err) : 0;
}

int
launch_spawn (const struct launch_opts *o, struct launch *l, shim_error_t *err)
{
  const struct shim_config *cfg = l->cfg;
  cleanup_close int listen_fd = -1, console_fd = -1;
  struct container_opts copts = {
    .no_pivot = o->c.no_pivot,
    .id = o->c.id,
    .cgroup_fd = cgroup_clone_fd (&l->cg),
    .cgroup = &l->cg,
    .detach = o->detach,
    .exec_listen_fd = -1,
    .console_fd = -1,
    .cgroup_entered = cgroup_entered,
    .opaque = l,
  };

  /* The watcher's baseline before init exists: init, and the createRuntime
   * and createContainer hooks, may already use memory. */
  if (o->detach && l->cg.dirfd >= 0)
    {
      /* The parent: its last read comes when the container's cgroup has
       * emptied, before anything of ours is removed. */
      if (arm_watcher (l, err) < 0)
        return -1;
    }
  l->arm_on_enter = o->detach && l->cg.dirfd < 0 && l->cg.path != NULL;
  if (o->wait_start && (listen_fd = copts.exec_listen_fd = sync_listen_exec (l->dirfd, err)) < 0)
    return -1;
  if (cfg->process.terminal && o->c.console_socket
      && (console_fd = copts.console_fd = lifecycle_connect_console (o->c.console_socket, err)) < 0)
    return -1;
  if (has_hooks (cfg, HOOK_PRESTART) || has_hooks (cfg, HOOK_CREATE_RUNTIME)
      || has_hooks (cfg, HOOK_CREATE_CONTAINER) || has_hooks (cfg, HOOK_START_CONTAINER))
    copts.create_runtime = create_runtime;
  if (container_spawn (cfg, &copts, &l->proc, err) < 0)
    return -1;
  fault_point ("create:after-spawn");
  log_msg (LOG_DEBUG, "container %s: init is pid %d", o->c.id, (int) l->proc.pid);
  if (record_pid (l, l->proc.pid, err) < 0 || state_write (l->dirfd, &l->st, err) < 0)
    return -1;
  fault_point ("create:after-state");
  if (o->c.pid_file && lifecycle_write_pid_file (o->c.pid_file, l->proc.pid, err) < 0)
    return -1;
  if (o->detach)
    {
      cleanup_close int bfd = open (l->st.bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      cleanup_close int lock = -1;
      /* Opened now, on the host side, for the watcher to write in when it
       * sees the OOM kill; not when the caller reaps init and writes it
       * with the status the watcher may not have. */
      cleanup_close int tlog = o->c.reaper_verdict ? -1 : lifecycle_termination_log_open (cfg);
      struct watcher_policy p = { .id = l->st.id,
                                  .memory_limit_enforced = l->cg.memory_limit_enforced,
                                  .dirfd = l->dirfd,
                                  .name = STATE_RECORD,
                                  .bundle_fd = bfd,
                                  .termination_log_fd = tlog,
                                  .lock_fd = -1,
                                  .stop_open = state_delete_watch,
                                  .stop = state_file_deleted,
                                  .init_pidfd = l->proc.pidfd,
                                  .init_pid = l->proc.pid,
                                  .signals = launch_signals };
      /* A marker from an earlier run of this bundle is not this one's. */
      if (bfd >= 0 && unlinkat (bfd, MARK_OOM_FILE, 0) < 0 && errno != ENOENT)
        return shim_error_errno (err, "remove the stale `%s/oom`", l->st.bundle);
      if (!l->watcher_armed)
        return 0;
      p.lock_fd = lock = openat (l->dirfd, STATE_WATCHER_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      if (lock < 0 || flock (lock, LOCK_EX | LOCK_NB) < 0)
        return shim_error_errno (err, "lock `%s` for the watcher", STATE_WATCHER_LOCK);
      l->watcher_armed = false;
      if (watcher_spawn (&l->watcher, &p, err) < 0)
        return shim_error_prefix (err, "container %s", l->st.id);
      fault_point ("create:after-watcher");
    }
  /* Only a container that started is kept: a failed one leaves nothing. */
  l->cg.keep = o->c.keep_cgroup;
  return 0;
}

void
launch_abort (const struct runtime_ctx *ctx, struct launch *l)
{
  shim_error_t tmp = NULL;

  if (l->proc.pidfd >= 0)
    {
      siginfo_t si;
      syscall (SYS_pidfd_send_signal, l->proc.pidfd, SIGKILL, NULL, 0);
      waitid (P_PIDFD, (id_t) l->proc.pidfd, &si, WEXITED);
      close (l->proc.pidfd);
      l->proc.pidfd = -1;
    }
  /* The state goes, so the cgroup goes too, --keep or not. */
  l->cg.keep = false;
  if (cgroup_destroy (&l->cg, &tmp) < 0)
    log_error_release (&tmp);
  if (l->dirfd >= 0 && l->st.id && state_remove (ctx->root, l->st.id, &tmp) < 0)
    log_error_release (&tmp);
}

void
launch_release (struct launch *l)
{
  if (l->watcher_armed)
    watcher_release (&l->watcher);
  l->watcher_armed = false;
  if (l->proc.pidfd >= 0)
    close (l->proc.pidfd);
  if (l->proc.pty_master >= 0)
    close (l->proc.pty_master);
  if (l->dirfd >= 0)
    close (l->dirfd);
  cgroup_release (&l->cg);
  state_free (&l->st);
  if (l->cfg)
    config_free (l->cfg);
  l->cfg = NULL;
  l->dirfd = l->proc.pidfd = l->proc.pty_master = -1;
}
