/* SPDX-License-Identifier: Apache-2.0 */
/* state, list, ps, events: reading a container without changing it.  A
 * stopped container's state carries the verdict in its annotations. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup_files.h"
#include "cli/commands.h"
#include "common/json.h"
#include "runtime/lifecycle.h"
#include "common/log.h"
#include "common/util.h"

static void
cleanup_refp (struct container_ref *r)
{
  container_ref_release (r);
}
#define cleanup_ref __attribute__ ((cleanup (cleanup_refp)))

/* The verdict to show for a stopped container: the one `run --keep` saved
 * with init's exit status, else one from the watcher's record. */
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
  lifecycle_verdict (r->dirfd, &r->st, &r->cg, &v, err);
  /* podman reads <bundle>/oom when it learns of the exit, and asks for the
   * state first: the marker is certain to be there by then. */
  lifecycle_mark_oom (&r->st, &v);
  return lifecycle_state_json (&r->st, STATUS_STOPPED, &v, out, err);
}

static int
state_of (struct container_ref *r, char **out, shim_error_t *err)
{
  if (r->status == STATUS_STOPPED && !r->st.foreground)
    return stopped_state_json (r, out, err);
  return state_to_json (&r->st, r->status, NULL, 0, out, err);
}

int
cmd_state (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  cleanup_ref struct container_ref r = { .dirfd = -1 };
  cleanup_free char *json = NULL;

  if (argc != 2)
    return shim_error_plain (err, EINVAL, "state: exactly one container id is required");
  if (container_ref_open (g, argv[1], false, &r, err) < 0 || state_of (&r, &json, err) < 0)
    return -1;
  printf ("%s\n", json);
  return 0;
}

int
cmd_list (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    { "quiet", no_argument, NULL, 'q' },
    { NULL, 0, NULL, 0 },
  };
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  bool json = false, quiet = false, first = true;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+f:q", opts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        if (strcmp (optarg, "json") != 0 && strcmp (optarg, "table") != 0)
          return shim_error_plain (err, EINVAL, "list: --format `%s`: table or json", optarg);
        json = strcmp (optarg, "json") == 0;
        break;
      case 'q': quiet = true; break;
      default: return shim_error_plain (err, EINVAL, "list: unknown option `%s`", argv[optind - 1]);
      }
  d = opendir (g->root);
  if (d == NULL && errno != ENOENT)
    return shim_error_errno (err, "open the state root `%s`", g->root);
  if (json)
    printf ("[");
  else if (!quiet)
    printf ("%-24s %-8s %-10s %-40s %-30s %s\n", "ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER");
  while (d && (de = readdir (d)))
    {
      cleanup_ref struct container_ref r = { .dirfd = -1 };
      cleanup_free char *one = NULL;
      shim_error_t tmp = NULL;

      if (de->d_name[0] == '.' || state_validate_id (de->d_name, NULL) < 0)
        continue;
      /* One that vanished or is half-made is left out, not an error. */
      if (container_ref_open (g, de->d_name, false, &r, &tmp) < 0 || r.status == STATUS_CREATING)
        {
          shim_error_release (&tmp);
          continue;
        }
      if (quiet)
        printf ("%s\n", r.st.id);
      else if (json)
        {
          if (state_of (&r, &one, &tmp) < 0)
            {
              shim_error_release (&tmp);
              continue;
            }
          printf ("%s%s", first ? "" : ",", one);
          first = false;
        }
      else
        printf ("%-24s %-8d %-10s %-40s %-30s %s\n", r.st.id, r.status == STATUS_STOPPED ? 0 : (int) r.st.pid,
                state_status_name (r.status), r.st.bundle, r.st.created, r.st.owner == 0 ? "root" : "-");
    }
  if (json)
    printf ("]\n");
  return 0;
}

int
cmd_ps (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    { NULL, 0, NULL, 0 },
  };
  cleanup_ref struct container_ref r = { .dirfd = -1 };
  cleanup_free char *procs = NULL;
  char *line, *save = NULL;
  bool json = false, first = true;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+f:", opts, NULL)) != -1)
    switch (c)
      {
      case 'f': json = strcmp (optarg, "json") == 0; break;
      default: return shim_error_plain (err, EINVAL, "ps: unknown option `%s`", argv[optind - 1]);
      }
  if (optind >= argc)
    return shim_error_plain (err, EINVAL, "ps: a container id is required");
  if (container_ref_open (g, argv[optind], false, &r, err) < 0)
    return -1;
  if (r.cg.dirfd < 0)
    return shim_error_plain (err, ENOENT, "ps: container `%s` has no cgroup", argv[optind]);
  if (util_read_file_at (r.cg.dirfd, "cgroup.procs", &procs, NULL, err) < 0)
    return -1;
  if (json)
    printf ("[");
  else
    printf ("%-8s %s\n", "PID", "CMD");
  for (line = strtok_r (procs, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      if (json)
        {
          printf ("%s%s", first ? "" : ",", line);
          first = false;
        }
      else
        {
          /* ps(1) would be a fork and an exec; /proc/PID/cmdline is what
           * it reads anyway. */
          char path[64];
          cleanup_free char *cmd = NULL;
          size_t len = 0, i;
          shim_error_t tmp = NULL;
          snprintf (path, sizeof (path), "/proc/%s/cmdline", line);
          if (util_read_file_at (AT_FDCWD, path, &cmd, &len, &tmp) < 0)
            shim_error_release (&tmp);
          for (i = 0; cmd && i + 1 < len; i++)
            if (cmd[i] == '\0')
              cmd[i] = ' ';
          printf ("%-8s %s\n", line, cmd ? cmd : "");
        }
    }
  if (json)
    printf ("]\n");
  return 0;
}

/* runc's stats event: memory, pids and cpu of the cgroup. */
static void
print_stats (const char *id, int cgfd)
{
  cleanup_free char *cur = NULL, *peak = NULL, *max = NULL, *pids = NULL, *pmax = NULL, *cpu = NULL;
  shim_error_t tmp = NULL;
  uint64_t usage = 0, mpeak = 0, limit = 0, npids = 0, plimit = 0, usec = 0;
  char *p;

  if (util_read_file_at (cgfd, "memory.current", &cur, NULL, &tmp) == 0)
    util_parse_u64 (cur, &usage);
  shim_error_release (&tmp);
  if (util_read_file_at (cgfd, "memory.peak", &peak, NULL, &tmp) == 0)
    util_parse_u64 (peak, &mpeak);
  shim_error_release (&tmp);
  if (util_read_file_at (cgfd, "memory.max", &max, NULL, &tmp) == 0)
    cg_parse_limit_file ("memory.max", max, &limit, &tmp);
  shim_error_release (&tmp);
  if (util_read_file_at (cgfd, "pids.current", &pids, NULL, &tmp) == 0)
    util_parse_u64 (pids, &npids);
  shim_error_release (&tmp);
  if (util_read_file_at (cgfd, "pids.max", &pmax, NULL, &tmp) == 0)
    cg_parse_limit_file ("pids.max", pmax, &plimit, &tmp);
  shim_error_release (&tmp);
  if (util_read_file_at (cgfd, "cpu.stat", &cpu, NULL, &tmp) == 0 && (p = strstr (cpu, "usage_usec ")))
    sscanf (p + 11, "%lu", &usec);
  shim_error_release (&tmp);
  printf ("{\"type\":\"stats\",\"id\":\"%s\",\"data\":{\"cpu\":{\"usage\":{\"total\":%lu}},"
          "\"memory\":{\"usage\":{\"usage\":%lu,\"max\":%lu,\"limit\":%lu}},"
          "\"pids\":{\"current\":%lu,\"limit\":%lu}}}\n",
          id, usec * 1000, usage, mpeak, limit == CG_UNLIMITED ? 0 : limit, npids,
          plimit == CG_UNLIMITED ? 0 : plimit);
  fflush (stdout);
}

static int
parse_interval (const char *s, int *ms)
{
  char *end;
  double v = strtod (s, &end);
  if (end == s || v <= 0)
    return -1;
  if (strcmp (end, "ms") == 0)
    *ms = (int) v;
  else if (strcmp (end, "s") == 0 || *end == '\0')
    *ms = (int) (v * 1000);
  else if (strcmp (end, "m") == 0)
    *ms = (int) (v * 60000);
  else
    return -1;
  return *ms > 0 ? 0 : -1;
}

int
cmd_events (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "stats", no_argument, NULL, 's' },
    { "interval", required_argument, NULL, 'i' },
    { NULL, 0, NULL, 0 },
  };
  cleanup_ref struct container_ref r = { .dirfd = -1 };
  cleanup_close int local = -1, cgev = -1;
  struct cg_snapshot base;
  uint64_t reported = 0;
  bool stats = false;
  int c, interval = 5000;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+", opts, NULL)) != -1)
    switch (c)
      {
      case 's': stats = true; break;
      case 'i':
        if (parse_interval (optarg, &interval) < 0)
          return shim_error_plain (err, EINVAL, "events: --interval `%s`: e.g. 5s, 500ms", optarg);
        break;
      default: return shim_error_plain (err, EINVAL, "events: unknown option `%s`", argv[optind - 1]);
      }
  if (optind >= argc)
    return shim_error_plain (err, EINVAL, "events: a container id is required");
  if (container_ref_open (g, argv[optind], false, &r, err) < 0)
    return -1;
  if (r.cg.dirfd < 0 || r.status == STATUS_STOPPED)
    return shim_error_plain (err, ESRCH, "events: container `%s` is not running", argv[optind]);
  if (stats)
    {
      print_stats (r.st.id, r.cg.dirfd);
      return 0;
    }
  /* The lock is not held while we stream: delete must not wait for us. */
  close (steal_fd (&r.dirfd));
  if (cg_snapshot_read (r.cg.dirfd, &base, err) < 0)
    return -1;
  local = openat (r.cg.dirfd, "memory.events.local", O_RDONLY | O_CLOEXEC);
  cgev = openat (r.cg.dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  if (cgev < 0)
    return shim_error_errno (err, "open `%s/cgroup.events`", r.cg.path);
  for (;;)
    {
      struct pollfd p[2] = { { .fd = local, .events = POLLPRI }, { .fd = cgev, .events = POLLPRI } };
      struct cg_snapshot now;
      shim_error_t tmp = NULL;
      int n = poll (p, 2, interval);

      if (n < 0 && errno != EINTR)
        return shim_error_errno (err, "poll");
      if (n == 0)
        {
          print_stats (r.st.id, r.cg.dirfd);
          continue;
        }
      /* kernfs keeps reporting a change until the polled fd reads it. */
      {
        char ack[512];
        if (local >= 0)
          (void) !pread (local, ack, sizeof (ack), 0);
        (void) !pread (cgev, ack, sizeof (ack), 0);
      }
      if (cg_snapshot_read (r.cg.dirfd, &now, &tmp) < 0)
        {
          shim_error_release (&tmp);
          return 0; /* the cgroup is gone */
        }
      /* The verdict's own rule decides whose kill it was: a kill in a
       * nested cgroup is never the container's "oom" event. */
      {
        struct verdict_input in = { .container_id = r.st.id, .baseline = &base, .final = &now, .at_oom = &now };
        struct verdict v;
        verdict_compute (&in, &v);
        if (v.have_oom && v.oom.scope != VERDICT_SCOPE_NONE && v.oom.kills > reported)
          {
            reported = v.oom.kills;
            printf ("{\"type\":\"oom\",\"id\":\"%s\"}\n", r.st.id);
            fflush (stdout);
          }
      }
      if ((now.have & CG_SNAP_CGROUP_EVENTS) && !now.cgroup_events.populated)
        return 0;
    }
}
