/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/version.h"
#include "common/json.h"
#include "common/util.h"
#include "runtime/runtime.h"
#include "verdict/verdict.h"

int
state_validate_id (const char *id, shim_error_t *err)
{
  const char *why = util_id_invalid (id);
  return why ? shim_error_plain (err, EINVAL, "container id `%s`: %s", id, why) : 0;
}

const char *
runtime_default_root (void)
{
  static char buf[PATH_MAX];
  const char *xdg = getenv ("XDG_RUNTIME_DIR");

  /* An ordinary user cannot write /run; its own runtime directory is where
   * runc keeps a rootless container's state too (util_rootless: root of
   * podman's user namespace is rootless as well). */
  if (!util_rootless () || xdg == NULL || xdg[0] != '/'
      || (size_t) snprintf (buf, sizeof buf, "%s/shim", xdg) >= sizeof buf)
    return RUNTIME_DEFAULT_ROOT;
  return buf;
}

int
state_create (const char *root, const char *id, shim_error_t *err)
{
  cleanup_close int rootfd = -1;
  int fd;

  /* containerd passes --root /run/containerd/runc/NAMESPACE and leaves
   * the parents to the runtime, as runc creates them. */
  rootfd = util_mkdir_all (root, 0700, err);
  if (rootfd < 0)
    return shim_error_prefix (err, "the state root");
  if (mkdirat (rootfd, id, 0700) < 0)
    {
      if (errno == EEXIST)
        return shim_error_plain (err, EEXIST, "container `%s` already exists (state in `%s/%s`)", id, root, id);
      return shim_error_errno (err, "create the state dir `%s/%s`", root, id);
    }
  fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return shim_error_errno (err, "open the state dir `%s/%s`", root, id);
  return fd;
}

int
state_open (const char *root, const char *id, bool exclusive, shim_error_t *err)
{
  cleanup_close int fd = -1;
  char path[PATH_MAX];

  if (state_validate_id (id, err) < 0)
    return -1;
  if ((size_t) snprintf (path, sizeof (path), "%s/%s", root, id) >= sizeof (path))
    return shim_error_plain (err, ENAMETOOLONG, "state dir `%s/%s`: name too long", root, id);
  fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return shim_error_plain (err, ENOENT, "container `%s` does not exist", id);
      return shim_error_errno (err, "open the state dir `%s`", path);
    }
  if (flock (fd, exclusive ? LOCK_EX : LOCK_SH) < 0)
    return shim_error_errno (err, "lock the state dir `%s`", path);
  return steal_fd (&fd);
}

/* Unlink every entry of the directory DFD (taken). */
static int
empty_dir (int dfd, const char *root, const char *id, shim_error_t *err)
{
  cleanup_dir DIR *d = fdopendir (dfd);
  struct dirent *de;

  if (d == NULL)
    {
      close (dfd);
      return shim_error_errno (err, "read the state dir `%s/%s`", root, id);
    }
  while ((de = readdir (d)))
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (unlinkat (dirfd (d), de->d_name, 0) < 0 && errno != ENOENT)
        return shim_error_errno (err, "remove `%s/%s/%s`", root, id, de->d_name);
    }
  return 0;
}

int
state_remove (const char *root, const char *id, shim_error_t *err)
{
  cleanup_close int rootfd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int attempt;

  if (rootfd < 0)
    return shim_error_errno (err, "open the state root `%s`", root);
  /* The watcher may be writing record.json (through a temporary file) at
   * this very moment; it stops once state.json is gone, so a new pass
   * after ENOTEMPTY finds what it left (measured: 2-5% of `delete --force`
   * right after `create` hit ENOTEMPTY with a single pass). */
  for (attempt = 0; attempt < 100; attempt++)
    {
      int dfd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (dfd < 0)
        {
          if (errno == ENOENT)
            return 0;
          return shim_error_errno (err, "open the state dir `%s/%s`", root, id);
        }
      if (empty_dir (dfd, root, id, err) < 0)
        return -1;
      if (unlinkat (rootfd, id, AT_REMOVEDIR) == 0 || errno == ENOENT)
        return 0;
      if (errno != ENOTEMPTY)
        break;
    }
  return shim_error_errno (err, "remove the state dir `%s/%s`", root, id);
}

static bool
gen_annotations (yajl_gen g, const struct util_kv *kv, size_t n, const struct util_kv *extra,
                 size_t n_extra)
{
  size_t i;
  if (!json_str (g, "annotations") || yajl_gen_map_open (g) != yajl_gen_status_ok)
    return false;
  for (i = 0; i < n; i++)
    if (!json_kv_str (g, kv[i].key, kv[i].value))
      return false;
  for (i = 0; i < n_extra; i++)
    if (!json_kv_str (g, extra[i].key, extra[i].value))
      return false;
  return yajl_gen_map_close (g) == yajl_gen_status_ok;
}

static int
gen_finish (yajl_gen g, char **out, const char *what, shim_error_t *err)
{
  const unsigned char *buf;
  size_t len;
  if (yajl_gen_map_close (g) != yajl_gen_status_ok || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return shim_error_plain (err, ENOMEM, "%s", what);
  *out = strndup ((const char *) buf, len);
  if (*out == NULL)
    return shim_error_errno (err, "%s", what);
  return 0;
}

int
state_write (int dirfd, const struct shim_state *st, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  cleanup_free char *out = NULL;

  if (g == NULL
      || !(yajl_gen_map_open (g) == yajl_gen_status_ok && json_kv_str (g, "id", st->id)
           && json_kv_int (g, "pid", st->pid) && json_kv_int (g, "pid_start", (long long) st->pid_start)
           && json_kv_str (g, "bundle", st->bundle) && json_kv_str (g, "rootfs", st->rootfs)
           && json_kv_str (g, "created", st->created) && json_kv_int (g, "owner", st->owner)
           && json_kv_str (g, "cgroup_path", st->cgroup_path)
           && json_kv_int (g, "cgroup_created_depth", (long long) st->cgroup_created_depth)
           && (st->cgroup_v1_paths == NULL || json_kv_str (g, "cgroup_v1_paths", st->cgroup_v1_paths))
           && json_kv_bool (g, "memory_limit_enforced", st->memory_limit_enforced)
           && json_kv_bool (g, "foreground", st->foreground) && json_kv_bool (g, "no_pivot", st->no_pivot)
           && json_kv_int (g, "hook_stages", st->hook_stages)
           && gen_annotations (g, st->annotations, st->n_annotations, NULL, 0)))
    return shim_error_plain (err, ENOMEM, "state.json of `%s`", st->id);
  if (gen_finish (g, &out, STATE_FILE, err) < 0)
    return -1;
  return util_write_file_atomic_at (dirfd, STATE_FILE, out, strlen (out), 0600, err);
}

static int
dup_field (yajl_val root, const char *key, char **out, shim_error_t *err)
{
  const char *s = json_field_str (root, key);
  *out = NULL;
  if (s && (*out = strdup (s)) == NULL)
    return shim_error_errno (err, "state.json: %s", key);
  return 0;
}

static long long
int_field (yajl_val root, const char *key)
{
  yajl_val v = json_field (root, key);
  return v && YAJL_IS_INTEGER (v) ? YAJL_GET_INTEGER (v) : 0;
}

int
state_read (int dirfd, struct shim_state *st, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  cleanup_yajl_val yajl_val root = NULL;
  yajl_val ann;
  char errbuf[256];
  size_t i;

  memset (st, 0, sizeof (*st));
  if (util_read_file_at (dirfd, STATE_FILE, &buf, NULL, err) < 0)
    return -1;
  root = yajl_tree_parse (buf, errbuf, sizeof (errbuf));
  if (root == NULL || !YAJL_IS_OBJECT (root))
    return shim_error_plain (err, EINVAL, "state.json: malformed: %s", root ? "not an object" : errbuf);
  if (dup_field (root, "id", &st->id, err) < 0 || dup_field (root, "bundle", &st->bundle, err) < 0
      || dup_field (root, "rootfs", &st->rootfs, err) < 0 || dup_field (root, "created", &st->created, err) < 0
      || dup_field (root, "cgroup_path", &st->cgroup_path, err) < 0
      || dup_field (root, "cgroup_v1_paths", &st->cgroup_v1_paths, err) < 0)
    return -1;
  st->pid = (pid_t) int_field (root, "pid");
  st->pid_start = (uint64_t) int_field (root, "pid_start");
  st->owner = (uid_t) int_field (root, "owner");
  st->cgroup_created_depth = (size_t) int_field (root, "cgroup_created_depth");
  st->memory_limit_enforced = YAJL_IS_TRUE (json_field (root, "memory_limit_enforced"));
  st->foreground = YAJL_IS_TRUE (json_field (root, "foreground"));
  st->no_pivot = YAJL_IS_TRUE (json_field (root, "no_pivot"));
  st->hook_stages = (unsigned) int_field (root, "hook_stages");
  ann = json_field (root, "annotations");
  if (ann && YAJL_IS_OBJECT (ann) && ann->u.object.len)
    {
      st->annotations = calloc (ann->u.object.len, sizeof (*st->annotations));
      if (st->annotations == NULL)
        return shim_error_errno (err, "state.json: annotations");
      for (i = 0; i < ann->u.object.len; i++)
        {
          const char *v = YAJL_IS_STRING (ann->u.object.values[i]) ? ann->u.object.values[i]->u.string : "";
          st->annotations[i].key = strdup (ann->u.object.keys[i]);
          st->annotations[i].value = strdup (v);
          st->n_annotations++;
          if (!st->annotations[i].key || !st->annotations[i].value)
            return shim_error_errno (err, "state.json: annotations");
        }
    }
  if (st->id == NULL)
    return shim_error_plain (err, EINVAL, "state.json: no `id`");
  return 0;
}

void
state_free (struct shim_state *st)
{
  size_t i;
  free (st->id);
  free (st->bundle);
  free (st->rootfs);
  free (st->created);
  free (st->cgroup_path);
  free (st->cgroup_v1_paths);
  for (i = 0; i < st->n_annotations; i++)
    {
      free (st->annotations[i].key);
      free (st->annotations[i].value);
    }
  free (st->annotations);
  memset (st, 0, sizeof (*st));
}

int
state_proc_start_time (pid_t pid, uint64_t *start, bool *zombie, shim_error_t *err)
{
  char path[64], *p;
  cleanup_free char *buf = NULL;
  int field;

  snprintf (path, sizeof (path), "/proc/%d/stat", (int) pid);
  if (util_read_file_at (AT_FDCWD, path, &buf, NULL, err) < 0)
    return -1;
  /* comm may hold spaces and parentheses: the fields start after the last
   * ')'.  Then state is field 3, starttime field 22. */
  p = strrchr (buf, ')');
  if (p == NULL || p[1] != ' ')
    return shim_error_plain (err, EINVAL, "%s: malformed", path);
  p += 2;
  if (zombie)
    *zombie = *p == 'Z' || *p == 'X';
  for (field = 3; field < 22 && p; field++)
    {
      p = strchr (p, ' ');
      if (p)
        p++;
    }
  if (p == NULL || sscanf (p, "%" SCNu64, start) != 1)
    return shim_error_plain (err, EINVAL, "%s: malformed", path);
  return 0;
}

enum container_status
state_status (int dirfd, const struct cgroup *cg, const struct shim_state *st)
{
  uint64_t start;
  bool zombie = false;
  shim_error_t tmp = NULL;
  struct stat sb;

  if (st->pid <= 0)
    return STATUS_STOPPED;
  if (state_proc_start_time (st->pid, &start, &zombie, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return STATUS_STOPPED;
    }
  if (start != st->pid_start || zombie)
    return STATUS_STOPPED;
  if (fstatat (dirfd, STATE_EXEC_SOCK, &sb, AT_SYMLINK_NOFOLLOW) == 0)
    return STATUS_CREATED;
  if (cgroup_frozen (cg))
    return STATUS_PAUSED;
  return STATUS_RUNNING;
}

const char *
state_status_name (enum container_status s)
{
  static const char *const names[] = { "creating", "created", "running", "paused", "stopped" };
  return names[s];
}

int
state_to_json (const struct shim_state *st, enum container_status status, const struct util_kv *extra,
               size_t n_extra, char **out, shim_error_t *err)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  /* runc reports pid 0 once the container has stopped. */
  pid_t pid = status == STATUS_STOPPED ? 0 : st->pid;

  if (g == NULL
      || !(yajl_gen_map_open (g) == yajl_gen_status_ok && json_kv_str (g, "ociVersion", SHIM_SPEC_VERSION)
           && json_kv_str (g, "id", st->id) && json_kv_int (g, "pid", pid)
           && json_kv_str (g, "status", state_status_name (status)) && json_kv_str (g, "bundle", st->bundle)
           && json_kv_str (g, "rootfs", st->rootfs) && json_kv_str (g, "created", st->created)
           && json_kv_str (g, "owner", "")
           && gen_annotations (g, st->annotations, st->n_annotations, extra, n_extra)))
    return shim_error_plain (err, ENOMEM, "state of `%s`", st->id);
  return gen_finish (g, out, "state", err);
}

int
state_signals_write (int dirfd, uint64_t bits, shim_error_t *err)
{
  char buf[32];
  int n = snprintf (buf, sizeof (buf), "%" PRIu64 "\n", bits);

  return util_write_file_atomic_at (dirfd, STATE_SIGNALS, buf, (size_t) n, 0600, err);
}

int
state_record_signal (int dirfd, int sig, shim_error_t *err)
{
  if (sig < 1 || sig > 64)
    return 0;
  return state_signals_write (dirfd, state_signals_sent (dirfd) | VERDICT_SIGBIT (sig), err);
}

/* A shared lock on the state dir, through a new open file: a second flock
 * through the caller's fd would convert its own lock instead of waiting. */
static int
lock_shared (int dirfd)
{
  cleanup_close int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  long long deadline = util_monotonic_ms () + STATE_SIGNALS_LOCK_MS;

  if (fd < 0)
    return -1;
  while (flock (fd, LOCK_SH | LOCK_NB) < 0)
    {
      if ((errno != EWOULDBLOCK && errno != EINTR) || util_monotonic_ms () >= deadline)
        return -1;
      /* The holder is a `kill` (a pidfd_send_signal and a file write) or a
       * `delete --force` (bounded wait for init): retry shortly. */
      poll (NULL, 0, 10);
    }
  return steal_fd (&fd);
}

int
state_signals_read (int dirfd, bool lock, uint64_t *bits)
{
  cleanup_close int lockfd = -1;
  cleanup_free char *buf = NULL;
  shim_error_t tmp = NULL;

  *bits = 0;
  if (lock && (lockfd = lock_shared (dirfd)) < 0)
    return -1;
  if (util_read_file_at (dirfd, STATE_SIGNALS, &buf, NULL, &tmp) < 0)
    {
      bool none = tmp->status == ENOENT;
      shim_error_release (&tmp);
      return none ? 0 : -1;
    }
  if (util_parse_u64 (buf, bits) < 0)
    {
      *bits = 0;
      return -1;
    }
  return 0;
}

uint64_t
state_signals_sent (int dirfd)
{
  uint64_t bits;

  state_signals_read (dirfd, false, &bits);
  return bits;
}
