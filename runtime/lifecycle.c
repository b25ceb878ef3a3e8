/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/lifecycle_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "evidence/mark.h"
#include "history/history.h"
#include "runtime/oci_hooks.h"
#include "evidence/input.h"
#include "evidence/watcher.h"

void
lifecycle_config_warning (void *opaque, const char *path, const char *why)
{
  (void) opaque;
  log_msg (LOG_WARNING, "config.json: %s: %s", path, why);
}

int
lifecycle_state_json (const struct shim_state *st, enum container_status status, const struct verdict *v,
                      char **out, shim_error_t *err)
{
  cleanup_free char *vjson = NULL;
  struct util_kv extra[3];
  char tri[8];

  if (v == NULL)
    return state_to_json (st, status, NULL, 0, out, err);
  if (verdict_to_json (v, &vjson, err) < 0)
    return -1;
  snprintf (tri, sizeof (tri), "%s",
            v->oom_killed == VERDICT_TRUE ? "true" : v->oom_killed == VERDICT_FALSE ? "false" : "null");
  extra[0] = (struct util_kv){ (char *) ANNOTATION_VERDICT, vjson };
  extra[1] = (struct util_kv){ (char *) ANNOTATION_OOM_KILLED, tri };
  extra[2] = (struct util_kv){ (char *) ANNOTATION_REASON, (char *) verdict_reason_name (v->reason) };
  return state_to_json (st, status, extra, 3, out, err);
}

/* A runtime-run stage (poststart, poststop): its failures are warnings. */
static void
run_stage (int dirfd, const struct shim_config *cfg, const struct shim_state *st, enum shim_hook_stage stage,
           enum container_status status, const struct verdict *v)
{
  cleanup_config struct shim_config *saved = NULL;
  cleanup_free char *json = NULL;
  shim_error_t tmp = NULL;

  if (!(st->hook_stages & (1u << stage)))
    return;
  if ((cfg == NULL && lifecycle_saved_config (dirfd, st, false, &saved, &tmp) < 0)
      || lifecycle_state_json (st, status, v, &json, &tmp) < 0)
    {
      log_error_release (&tmp);
      return;
    }
  oci_hooks_run_all (cfg ? cfg : saved, stage, json);
}

void
lifecycle_poststart (int dirfd, const struct shim_config *cfg, const struct shim_state *st)
{
  run_stage (dirfd, cfg, st, HOOK_POSTSTART, STATUS_RUNNING, NULL);
}

void
lifecycle_poststop (int dirfd, const struct shim_config *cfg, const struct shim_state *st, const struct verdict *v)
{
  run_stage (dirfd, cfg, st, HOOK_POSTSTOP, STATUS_STOPPED, v);
}

int
lifecycle_connect_console (const char *path, shim_error_t *err)
{
  cleanup_close int s = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };

  if (s < 0)
    return shim_error_errno (err, "socket");
  if (strlen (path) >= sizeof (sa.sun_path))
    return shim_error_plain (err, ENAMETOOLONG, "--console-socket `%s`: path too long", path);
  strcpy (sa.sun_path, path);
  if (connect (s, (struct sockaddr *) &sa, sizeof (sa)) < 0)
    return shim_error_errno (err, "--console-socket `%s`: connect", path);
  return steal_fd (&s);
}

int
lifecycle_write_pid_file (const char *path, pid_t pid, shim_error_t *err)
{
  char buf[32];
  int n = snprintf (buf, sizeof (buf), "%d", (int) pid);
  /* Atomic: engines read it as soon as create returns, and some poll it. */
  return util_write_file_atomic_at (AT_FDCWD, path, buf, (size_t) n, 0644, err);
}

void
lifecycle_signals (int dirfd, bool lock, struct evidence_sources *src)
{
  uint64_t sent = 0;
  bool unknown = state_signals_read (dirfd, lock, &sent) < 0;

  evidence_input_signals (src, sent, unknown);
}

/* init is a zombie nobody has reaped: its status reaches no pidfd until
 * its reaper takes it, so there is nothing to wait for now. */
static bool
init_unreaped (const struct shim_state *st)
{
  shim_error_t tmp = NULL;
  uint64_t start = 0;
  bool zombie = false;

  if (st->pid <= 0 || state_proc_start_time (st->pid, &start, &zombie, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return false;
    }
  return zombie && start == st->pid_start;
}

int
lifecycle_verdict (int dirfd, const struct shim_state *st, const struct cgroup *cg, int wait_ms,
                   const int *status, struct verdict *v, shim_error_t *err)
{
  struct evidence_sources src;
  struct watcher_record rec;
  struct cg_snapshot now;
  shim_error_t tmp = NULL;
  bool have_rec, running;

  (void) err;
  running = watcher_running (dirfd, STATE_WATCHER_LOCK);
  if (running && wait_ms > 0 && !init_unreaped (st))
    running = !watcher_wait_done (dirfd, STATE_WATCHER_LOCK, wait_ms);
  evidence_input_init (&src, st->id, st->memory_limit_enforced);
  evidence_input_init_pid (&src, st->pid);
  have_rec = watcher_record_read (dirfd, STATE_RECORD, &rec, &tmp) == 0;
  evidence_input_record (&src, have_rec ? &rec : NULL,
                         have_rec || (tmp && tmp->status == ENOENT) ? "the watcher left no record"
                         : "the watcher's record is unreadable");
  shim_error_release (&tmp);
  /* The caller reaped init itself: its status is the kernel's, whatever
   * the watcher could learn. */
  if (status)
    {
      src.in.have_status = true;
      src.in.status = *status;
    }
  /* The cgroup, while it is still there, is newer than any record (init
   * has died: the container is stopped). */
  if (cg->dirfd >= 0 && src.in.baseline && cgroup_snapshot (cg, &now, &tmp) == 0
      && (now.have & CG_SNAP_EVENTS_LOCAL))
    evidence_input_live (&src, NULL, &now);
  shim_error_release (&tmp);
  /* The caller holds the state dir's lock. */
  lifecycle_signals (dirfd, false, &src);
  src.in.provisional = running;
  evidence_input_compute (&src, v);
  return 0;
}

/* podman's <bundle>/oom. */
static void
mark_bundle (const struct shim_state *st, const struct verdict *v)
{
  cleanup_close int bfd = -1;
  shim_error_t tmp = NULL;
  int saved;

  if (st->bundle == NULL)
    return;
  bfd = open (st->bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  saved = errno;
  if (bfd >= 0 && mark_oom (bfd, v, &tmp) < 0)
    saved = tmp->status;
  if (bfd < 0 || tmp)
    log_msg (LOG_WARNING, "container %s: create `%s/oom` for podman: %s", st->id, st->bundle, strerror (saved));
  shim_error_release (&tmp);
}

int
lifecycle_termination_log_open (const struct shim_config *cfg)
{
  const struct shim_mount *m = NULL;
  cleanup_free char *rel = NULL;
  cleanup_close int path_fd = -1;
  const char *src;
  char self[64];
  struct stat sb;
  size_t i;

  /* The last one: it is mounted over any earlier one. */
  for (i = 0; i < cfg->n_mounts; i++)
    if (cfg->mounts[i].is_bind && cfg->mounts[i].source
        && strcmp (cfg->mounts[i].destination, TERMINATION_LOG) == 0)
      m = &cfg->mounts[i];
  if (m == NULL)
    return -1;
  /* A relative source is the bundle's, as for the mount itself. */
  src = m->source;
  if (src[0] != '/')
    {
      if (asprintf (&rel, "%s/%s", cfg->bundle, src) < 0)
        return -1;
      src = rel;
    }
  /* A host path from config.json, looked at before it is opened for
   * writing: O_PATH opens nothing (a fifo or a device would be), and with
   * O_NOFOLLOW a symlink is the link itself, not a regular file. */
  path_fd = open (src, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (path_fd < 0 || fstat (path_fd, &sb) < 0 || !S_ISREG (sb.st_mode))
    {
      log_msg (LOG_DEBUG, "%s: `%s` is not a regular file: left alone", TERMINATION_LOG, src);
      return -1;
    }
  /* The same inode reopened, not the path again.  O_NONBLOCK: a lease on
   * the file (the workload may own it) would make open wait 45 s
   * (lease-break-time); with it, open fails and the file is left alone. */
  snprintf (self, sizeof (self), "/proc/self/fd/%d", path_fd);
  return open (self, O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

/* Kubernetes' termination-log, from CFG or the config saved at create. */
static void
write_termination_log (int dirfd, const struct shim_config *cfg, const struct shim_state *st,
                       const struct verdict *v)
{
  cleanup_config struct shim_config *saved = NULL;
  cleanup_close int fd = -1;
  shim_error_t tmp = NULL;

  if (cfg == NULL && lifecycle_saved_config (dirfd, st, false, &saved, &tmp) < 0)
    shim_error_prefix (&tmp, "termination-log");
  else
    {
      fd = lifecycle_termination_log_open (cfg ? cfg : saved);
      mark_termination_log (fd, v, &tmp);
    }
  if (tmp)
    log_msg (LOG_WARNING, "container %s: %s", st->id, tmp->msg);
  shim_error_release (&tmp);
}

void
lifecycle_mark_oom (int dirfd, const struct shim_config *cfg, const struct shim_state *st, bool bundle_marker,
                    const struct verdict *v)
{
  if (v->oom_killed != VERDICT_TRUE)
    return;
  if (bundle_marker)
    mark_bundle (st, v);
  write_termination_log (dirfd, cfg, st, v);
}

void
lifecycle_tell (const struct history_config *h, int dirfd, const struct shim_config *cfg, const struct shim_state *st,
                const char *source, const struct verdict *v)
{
  cleanup_config struct shim_config *saved = NULL;
  cleanup_free char *podman_name = NULL;
  struct history_names names = { 0 };
  shim_error_t tmp = NULL;

  if (h == NULL)
    return;
  if (cfg == NULL && lifecycle_saved_config (dirfd, st, false, &saved, &tmp) < 0)
    log_msg (LOG_DEBUG, "container %s: no saved config for its names: %s", st->id, tmp->msg);
  shim_error_release (&tmp);
  cfg = cfg ? cfg : saved;
  if (cfg)
    history_names_from_annotations (cfg->annotations, cfg->n_annotations, &names);
  /* podman 4 names its containers in no annotation: its hosts file. */
  for (size_t i = 0; cfg && names.name == NULL && i < cfg->n_annotations; i++)
    if (strcmp (cfg->annotations[i].key, HISTORY_PODMAN_MANAGER_KEY) == 0
        && strcmp (cfg->annotations[i].value, HISTORY_PODMAN_MANAGER) == 0 && cfg->bundle)
      history_name_podman (cfg->bundle, &podman_name);
  if (podman_name)
    names.name = podman_name;
  history_tell (h, st->id, &names, source, v);
}

int
lifecycle_saved_config (int dirfd, const struct shim_state *st, bool or_bundle, struct shim_config **out,
                        shim_error_t *err)
{
  cleanup_free char *json = NULL;
  cleanup_close int bfd = -1;
  shim_error_t tmp = NULL;
  size_t len;

  /* A foreground `run` saves no copy (nothing on its start path that can
   * wait): its bundle is in use for as long as it runs. */
  if (util_read_file_at (dirfd, STATE_CONFIG, &json, &len, &tmp) < 0)
    {
      if (tmp->status != ENOENT || !or_bundle || st->bundle == NULL)
        return shim_error_take (err, &tmp);
      shim_error_release (&tmp);
      bfd = open (st->bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (bfd < 0)
        return shim_error_errno (err, "bundle `%s`", st->bundle);
      if (util_read_file_at (bfd, "config.json", &json, &len, err) < 0)
        return shim_error_prefix (err, "bundle `%s`", st->bundle);
    }
  if (config_parse (json, len, st->bundle, out, NULL, NULL, err) < 0)
    return shim_error_prefix (err, "the config saved at create");
  return 0;
}
