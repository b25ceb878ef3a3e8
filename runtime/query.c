/* SPDX-License-Identifier: Apache-2.0 */
/* state, list, ps, events: reading a container without changing it.  A
 * stopped container's state carries the verdict in its annotations. */
#include "runtime/runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cgroup/cgroup_files.h"
#include "common/json.h"
#include "common/util.h"
#include "evidence/mark.h"
#include "runtime/container_ref_internal.h"
#include "runtime/lifecycle_internal.h"
#include "evidence/input.h"
#include "evidence/monitor.h"

/* A stopped container's state: with the verdict `run --keep` saved with
 * init's exit status (a foreground run's: before this, `state` after `run
 * --keep` showed no verdict at all), else one from the watcher's record;
 * a foreground run that left no verdict has none to show. */
static int
stopped_state_json (struct container_ref *r, char **out, shim_error_t *err)
{
  cleanup_free char *saved = NULL;
  shim_error_t tmp = NULL;
  struct verdict v;

  if (util_read_file_at (r->dirfd, STATE_VERDICT, &saved, NULL, &tmp) == 0)
    {
      cleanup_yajl_val yajl_val root = yajl_tree_parse (saved, NULL, 0);
      yajl_val ok = json_field (root, "oom_killed");
      const char *reason = json_field_str (root, "reason");
      struct util_kv extra[3] = {
        { (char *) ANNOTATION_VERDICT, saved },
        { (char *) ANNOTATION_OOM_KILLED, (char *) (ok == NULL ? "null" : YAJL_IS_TRUE (ok) ? "true" : "false") },
        { (char *) ANNOTATION_REASON, (char *) (reason ? reason : "Unknown") },
      };
      return state_to_json (&r->st, STATUS_STOPPED, extra, 3, out, err);
    }
  shim_error_release (&tmp);
  if (r->st.foreground)
    return state_to_json (&r->st, STATUS_STOPPED, NULL, 0, out, err);
  lifecycle_verdict (r->dirfd, &r->st, &r->cg, 0, NULL, &v, err);
  /* podman reads <bundle>/oom when it learns of the exit, and asks for the
   * state first: the marker is certain to be there by then. */
  lifecycle_mark_oom (r->dirfd, NULL, &r->st, true, &v);
  return lifecycle_state_json (&r->st, STATUS_STOPPED, &v, out, err);
}

static int
state_of (struct container_ref *r, char **out, shim_error_t *err)
{
  if (r->status == STATUS_STOPPED)
    return stopped_state_json (r, out, err);
  return state_to_json (&r->st, r->status, NULL, 0, out, err);
}

int
runtime_state (const struct runtime_ctx *ctx, const char *id, char **json, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;

  if (container_ref_open (ctx->root, id, false, &r, err) < 0)
    return -1;
  return state_of (&r, json, err);
}

int
runtime_verdict_reaped (const struct runtime_ctx *ctx, const char *id, int status, int wait_ms, struct verdict *v,
                        shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;

  if (container_ref_open (ctx->root, id, false, &r, err) < 0)
    return -1;
  lifecycle_verdict (r.dirfd, &r.st, &r.cg, wait_ms, &status, v, err);
  /* As `state` of a stopped container: the files podman and Kubernetes
   * read are there once the verdict is known. */
  lifecycle_mark_oom (r.dirfd, NULL, &r.st, true, v);
  return 0;
}

void
runtime_list_free (struct runtime_list_entry *e, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    {
      free (e[i].id);
      free (e[i].bundle);
      free (e[i].created);
      free (e[i].state_json);
    }
  free (e);
}

/* One container's line of `list`: 1 when it is left out. */
static int
list_one (const char *root, const char *id, bool want_json, struct runtime_list_entry *e)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  shim_error_t tmp = NULL;

  /* One that vanished or is half-made is left out, not an error. */
  if (container_ref_open (root, id, false, &r, &tmp) < 0 || r.status == STATUS_CREATING)
    {
      shim_error_release (&tmp);
      return 1;
    }
  if (want_json && state_of (&r, &e->state_json, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return 1;
    }
  e->pid = r.status == STATUS_STOPPED ? 0 : r.st.pid;
  e->status = state_status_name (r.status);
  e->owner = r.st.owner;
  /* state_read made sure they are there. */
  e->id = steal_pointer (&r.st.id);
  e->bundle = steal_pointer (&r.st.bundle);
  e->created = steal_pointer (&r.st.created);
  return 0;
}

static int
by_id (const void *a, const void *b)
{
  return strcmp (((const struct runtime_list_entry *) a)->id, ((const struct runtime_list_entry *) b)->id);
}

int
runtime_list (const struct runtime_ctx *ctx, bool want_json, struct runtime_list_entry **out, size_t *n,
              shim_error_t *err)
{
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  size_t cap = 0;

  *out = NULL;
  *n = 0;
  d = opendir (ctx->root);
  if (d == NULL && errno != ENOENT)
    return shim_error_errno (err, "open the state root `%s`", ctx->root);
  while (d && (de = readdir (d)))
    {
      if (de->d_name[0] == '.' || state_validate_id (de->d_name, NULL) < 0)
        continue;
      if (*n == cap)
        {
          struct runtime_list_entry *ne = realloc (*out, (cap = cap ? 2 * cap : 16) * sizeof (**out));
          if (ne == NULL)
            return shim_error_errno (err, "list");
          *out = ne;
        }
      (*out)[*n] = (struct runtime_list_entry){ 0 };
      if (list_one (ctx->root, de->d_name, want_json, &(*out)[*n]) == 0)
        ++*n;
    }
  /* runc lists the root's entries as Go's ReadDir returns them: sorted by
   * name, byte by byte (measured with runc 1.1.5: containers made zeta,
   * alpha, mid, beta are listed alpha, beta, mid, zeta). */
  if (*n > 1)
    qsort (*out, *n, sizeof (**out), by_id);
  return 0;
}

void
runtime_ps_free (struct runtime_ps_entry *e, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    free (e[i].pid);
  free (e);
}

int
runtime_ps (const struct runtime_ctx *ctx, const char *id, struct runtime_ps_entry **out, size_t *n,
            shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  cleanup_free char *procs = NULL;
  char *line, *save = NULL;
  size_t cap = 0;

  *out = NULL;
  *n = 0;
  if (container_ref_open (ctx->root, id, false, &r, err) < 0)
    return -1;
  if (r.cg.dirfd < 0)
    return shim_error_plain (err, ENOENT, "ps: container `%s` has no cgroup", id);
  if (cgroup_procs_all (&r.cg, &procs, err) < 0)
    return -1;
  for (line = strtok_r (procs, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      if (*n == cap)
        {
          struct runtime_ps_entry *ne = realloc (*out, (cap = cap ? 2 * cap : 16) * sizeof (**out));
          if (ne == NULL)
            return shim_error_errno (err, "ps");
          *out = ne;
        }
      (*out)[*n].pid = strdup (line);
      if ((*out)[*n].pid == NULL)
        return shim_error_errno (err, "ps");
      ++*n;
    }
  return 0;
}

/* runc's stats event: cpu (usage and throttling), memory (usage and swap),
 * pids of the cgroup, and runc's other sections, empty. */
static int
emit_stats (const char *id, const struct cgroup *cg, int (*emit) (const char *, void *), void *opaque)
{
  cleanup_free char *line = NULL;
  struct cgroup_stats st;

  cgroup_stats_read (cg, &st);
  if (asprintf (&line,
                "{\"type\":\"stats\",\"id\":\"%s\",\"data\":{"
                "\"cpu\":{\"usage\":{\"total\":%" PRIu64 ",\"kernel\":%" PRIu64 ",\"user\":%" PRIu64 "},"
                "\"throttling\":{\"periods\":%" PRIu64 ",\"throttled_periods\":%" PRIu64
                ",\"throttled_time\":%" PRIu64 "}},"
                "\"memory\":{\"usage\":{\"usage\":%" PRIu64 ",\"max\":%" PRIu64 ",\"limit\":%" PRIu64
                ",\"failcnt\":%" PRIu64 "},\"swap\":{\"usage\":%" PRIu64 ",\"limit\":%" PRIu64 ",\"failcnt\":0}},"
                "\"pids\":{\"current\":%" PRIu64 ",\"limit\":%" PRIu64 "},"
                "\"blkio\":{},\"hugetlb\":{}}}",
                id, st.cpu_total, st.cpu_kernel, st.cpu_user, st.cpu_periods, st.cpu_throttled_periods,
                st.cpu_throttled_time, st.memory_usage, st.memory_max_usage, st.memory_limit, st.memory_failcnt,
                st.swap_usage, st.swap_limit, st.pids_current, st.pids_limit)
      < 0)
    {
      line = NULL;
      return 0;
    }
  return emit (line, opaque);
}

/* Whether the stream is at its end: init gone, or the state dir emptied
 * by `delete`.  (POLLERR on the cgroup's files is no end: kernfs reports
 * every change with it.) */
static bool
events_ended (const struct pollfd *init, int statefd)
{
  if (init->revents)
    return true;
  return faccessat (statefd, STATE_FILE, F_OK, 0) < 0 && errno == ENOENT;
}

int
runtime_events (const struct runtime_ctx *ctx, const char *id, bool stats_once, int interval_ms,
                int (*emit) (const char *line, void *opaque), void *opaque, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  cleanup_close int cgev = -1, statefd = -1, initfd = -1;
  __attribute__ ((cleanup (monitor_release))) struct monitor m = { .cgroup_fd = -1, .memory_fd = -1, .events_fd = -1,
                                                                  .freezer_fd = -1 };
  uint64_t reported = 0;

  if (container_ref_open (ctx->root, id, false, &r, err) < 0)
    return -1;
  if (r.cg.dirfd < 0 || r.status == STATUS_STOPPED)
    return shim_error_plain (err, ESRCH, "events: container `%s` is not running", id);
  if (stats_once)
    {
      (void) emit_stats (r.st.id, &r.cg, emit, opaque);
      return 0;
    }
  /* The lock is not held while we stream: delete must not wait for us.  A
   * second open of the dir is not locked. */
  statefd = openat (r.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (statefd < 0)
    return shim_error_errno (err, "events: the state dir of `%s`", id);
  close (steal_fd (&r.dirfd));
  {
    shim_error_t tmp = NULL;
    initfd = container_ref_init_pidfd (&r, &tmp);
    if (initfd < 0)
      {
        /* init is gone already: so is the container. */
        shim_error_release (&tmp);
        return 0;
      }
  }
  /* The monitor wakes the stream on an OOM: memory.events.local on cgroup
   * v2, the OOM eventfd of the v1 memory cgroup on v1 (which has no such
   * file: `events` said nothing of a hog's OOM kill on this hybrid host). */
  if (monitor_init_cgroup (&m, &r.cg, err) < 0)
    return -1;
  cgev = openat (r.cg.dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  if (cgev < 0)
    return shim_error_errno (err, "open `%s/cgroup.events`", r.cg.path);
  for (;;)
    {
      struct pollfd p[3] = {
        { .fd = monitor_fd (&m), .events = monitor_poll_events (&m) },
        { .fd = cgev, .events = POLLPRI },
        { .fd = initfd, .events = POLLIN },
      };
      struct cg_snapshot now;
      shim_error_t tmp = NULL;
      int n = poll (p, 3, interval_ms);
      bool end;

      if (n < 0 && errno != EINTR)
        return shim_error_errno (err, "poll");
      if (n < 0)
        continue;
      end = events_ended (&p[2], statefd);
      /* kernfs keeps reporting a change until the polled fd reads it.  A
       * removed cgroup's files poll ready for ever and read ENODEV: the
       * cgroup is gone, and so is the stream. */
      {
        char ack[512];
        if (pread (cgev, ack, sizeof (ack), 0) < 0)
          return 0;
      }
      /* monitor_update reads the polled fd too (kernfs and the eventfd
       * report a change until it is read). */
      if (monitor_update (&m, &tmp) < 0 || cgroup_snapshot (&r.cg, &now, &tmp) < 0
          || !(now.have & CG_SNAP_CGROUP_EVENTS))
        {
          shim_error_release (&tmp);
          return 0;
        }
      /* A line that could not be written (its reader gone: SIGPIPE does
       * not end shim) ends the stream, or `events | head` never would. */
      if (n == 0 && !end && emit_stats (r.st.id, &r.cg, emit, opaque) < 0)
        return 0;
      /* The verdict's own rule decides whose kill it was: a kill in a
       * nested cgroup is never the container's "oom" event (oom.kills
       * counts only the container's; its scope is null on v1 when the
       * limit's failcnt did not rise). */
      {
        struct evidence_sources src;
        struct verdict v;
        evidence_input_init (&src, r.st.id, r.st.memory_limit_enforced);
        evidence_input_live (&src, &m.baseline, &now);
        evidence_input_compute (&src, &v);
        if (v.have_oom && v.oom.kills > reported)
          {
            cleanup_free char *line = NULL;
            reported = v.oom.kills;
            if (asprintf (&line, "{\"type\":\"oom\",\"id\":\"%s\"}", r.st.id) < 0)
              return shim_error_errno (err, "events");
            if (emit (line, opaque) < 0)
              return 0;
          }
      }
      if (end || !now.cgroup_events.populated)
        return 0;
    }
}
