/* SPDX-License-Identifier: Apache-2.0 */
/* Sub-cgroups of a container's cgroup: their processes (`ps`), and
 * (`exec --cgroup`) as runc 1.1's
 * exec takes them: one PATH for every hierarchy (the only form cgroup v2
 * has), or CTRL[,CTRL...]:PATH, repeatable, for the cgroup v1 hierarchies
 * carrying those controllers.  The result is the container's cgroup with
 * those directories in place of its own, so that the one path a process
 * takes into a cgroup (CLONE_INTO_CGROUP, then cgroup_enter for the v1
 * hierarchies) takes it into the sub-cgroups. */
#include "cgroup/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"
#include "common/util.h"

/* Components of a path are pushed on a stack of this many at most. */
#define SUB_MAX_DEPTH 128

/* One CTRL:PATH argument, one controller each. */
struct sub_ctrl
{
  char *name;
  const char *path;
  const char *arg; /* the argument it came from, for messages */
  bool used;
};

struct sub_args
{
  const char *all;     /* PATH for every hierarchy, or NULL */
  const char *all_arg; /* its argument */
  struct sub_ctrl *c;
  size_t n;
};

static void
sub_args_free (struct sub_args *a)
{
  size_t i;
  for (i = 0; i < a->n; i++)
    free (a->c[i].name);
  free (a->c);
}

/* One controller of ARG's CTRLS:PATH.  Named again with the same path it
 * is taken once (runc 1.1 takes it again); with another path it is refused
 * (runc 1.1 took the last one given, runc 1.2 refuses any repeat). */
static int
add_ctrl (struct sub_args *a, const char *name, size_t len, const char *path, const char *arg, shim_error_t *err)
{
  struct sub_ctrl *nc;
  size_t j;

  if (len == 0)
    return shim_error_plain (err, EINVAL, "invalid --cgroup argument: %s (empty <controller> prefix)", arg);
  for (j = 0; j < a->n; j++)
    if (strlen (a->c[j].name) == len && strncmp (a->c[j].name, name, len) == 0)
      {
        if (strcmp (a->c[j].path, path) == 0)
          return 0;
        return shim_error_plain (err, EINVAL,
                                 "invalid --cgroup argument(s): controller %s specified multiple times, with "
                                 "different paths",
                                 a->c[j].name);
      }
  nc = realloc (a->c, (a->n + 1) * sizeof (*a->c));
  if (nc == NULL)
    return shim_error_errno (err, "sub-cgroup");
  a->c = nc;
  nc[a->n] = (struct sub_ctrl){ .name = strndup (name, len), .path = path, .arg = arg };
  if (nc[a->n].name == NULL)
    return shim_error_errno (err, "sub-cgroup");
  a->n++;
  return 0;
}

/* runc's forms: PATH alone (once), or CTRLS:PATH with each controller named
 * once; a second colon is refused, as runc 1.1 refuses it. */
static int
parse_args (char *const *args, size_t n, struct sub_args *a, shim_error_t *err)
{
  size_t i;

  for (i = 0; i < n; i++)
    {
      const char *colon = strchr (args[i], ':'), *c;
      if (colon == NULL && n != 1)
        return shim_error_plain (err, EINVAL, "invalid --cgroup argument: %s (missing <controller>: prefix)",
                                 args[i]);
      if (colon == NULL)
        {
          a->all = a->all_arg = args[i];
          continue;
        }
      if (strchr (colon + 1, ':') != NULL)
        return shim_error_plain (err, EINVAL, "invalid --cgroup argument: %s (one `:` at most)", args[i]);
      for (c = args[i]; c <= colon; c += strcspn (c, ",:") + 1)
        if (add_ctrl (a, c, strcspn (c, ",:"), colon + 1, args[i], err) < 0)
          return -1;
    }
  return 0;
}

int
cgroup_sub_path (const char *base, const char *sub, char **rel, shim_error_t *err)
{
  cleanup_free char *b = strdup (base), *walk = strdup (sub);
  const char *stack[SUB_MAX_DEPTH], *base_comp[SUB_MAX_DEPTH];
  size_t depth = 0, base_depth, i, len = 1;
  char *comp, *save = NULL, *out;

  *rel = NULL;
  if (walk == NULL || b == NULL)
    return shim_error_errno (err, "sub-cgroup");
  /* runc's path.Join(base, sub): base's components, then sub's, `.` and
   * `..` taken lexically, `..` at the root staying there. */
  for (comp = strtok_r (b, "/", &save); comp; comp = strtok_r (NULL, "/", &save))
    {
      if (depth == SUB_MAX_DEPTH)
        return shim_error_plain (err, ENAMETOOLONG, "cgroup `%s`: too deep", base);
      base_comp[depth] = comp;
      stack[depth++] = comp;
    }
  base_depth = depth;
  for (comp = strtok_r (walk, "/", &save); comp; comp = strtok_r (NULL, "/", &save))
    if (strcmp (comp, "..") == 0)
      depth -= depth > 0;
    else if (strcmp (comp, ".") != 0)
      {
        if (depth == SUB_MAX_DEPTH)
          return shim_error_plain (err, ENAMETOOLONG, "%s: too deep", sub);
        stack[depth++] = comp;
      }
  /* Under base: base's own components first, compared whole (runc
   * compares strings, so ../ID2 passed for a container ID: not here). */
  for (i = 0; i < base_depth; i++)
    if (i >= depth || strcmp (stack[i], base_comp[i]) != 0)
      return shim_error_plain (err, EXDEV, "%s is not a sub cgroup path: it leads out of `%s`", sub, base);
  for (i = base_depth; i < depth; i++)
    len += strlen (stack[i]) + 1;
  out = calloc (1, len + 1);
  if (out == NULL)
    return shim_error_errno (err, "sub-cgroup");
  for (i = base_depth; i < depth; i++)
    {
      if (i > base_depth)
        strcat (out, "/");
      strcat (out, stack[i]);
    }
  if (*out == '\0')
    strcpy (out, ".");
  *rel = out;
  return 0;
}

/* openat2's RESOLVE_BENEATH where the syscall is missing (before 5.6, or
 * filtered to ENOSYS): REL has no ".." (cgroup_sub_path), so opening it
 * one component at a time, none a symlink and none on another mount, stays
 * beneath DIRFD. */
static int
walk_beneath (int dirfd, const char *rel)
{
  cleanup_free char *copy = strdup (rel);
  cleanup_close int cur = -1;
  struct stat top, st;
  char *save = NULL, *part;

  if (copy == NULL || fstat (dirfd, &top) < 0)
    return -1;
  cur = fcntl (dirfd, F_DUPFD_CLOEXEC, 0);
  for (part = strtok_r (copy, "/", &save); cur >= 0 && part; part = strtok_r (NULL, "/", &save))
    {
      int next = openat (cur, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), e = errno;
      if (next >= 0 && (fstat (next, &st) < 0 || st.st_dev != top.st_dev))
        {
          close (next);
          e = EXDEV;
          next = -1;
        }
      close (cur);
      cur = next;
      errno = e;
    }
  return steal_fd (&cur);
}

/* REL (cgroup_sub_path's) beneath the container's directory DIRFD in the
 * hierarchy WHERE; a missing one is an error, as runc's. */
static int
open_beneath (int dirfd, const char *rel, const char *arg, const char *where, shim_error_t *err)
{
  struct open_how how = {
    .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };
  int fd;

  if (dirfd < 0)
    return shim_error_plain (err, ENOENT, "%s: the container has no cgroup in %s", arg, where);
  fd = (int) syscall (SYS_openat2, dirfd, rel, &how, sizeof (how));
  if (fd < 0 && errno == ENOSYS)
    fd = walk_beneath (dirfd, rel);
  if (fd < 0)
    return shim_error_errno (err, "%s: open `%s` under the container's cgroup in %s", arg, rel, where);
  return fd;
}

/* The directory a process of the view joins in a hierarchy whose container
 * directory is DIRFD at BASE: SUB under it, or (SUB NULL) DIRFD itself. */
static int
view_dir (int dirfd, const char *base, const char *sub, const char *arg, const char *where, shim_error_t *err)
{
  cleanup_free char *rel = NULL;
  int fd;

  if (sub == NULL)
    {
      if (dirfd < 0)
        return -1;
      fd = fcntl (dirfd, F_DUPFD_CLOEXEC, 0);
      if (fd < 0)
        return shim_error_errno (err, "cgroup `%s` in %s", base, where);
      return fd;
    }
  if (cgroup_sub_path (base, sub, &rel, err) < 0)
    return shim_error_prefix (err, "%s", arg);
  return open_beneath (dirfd, rel, arg, where, err);
}

/* The sub-path the arguments give the v1 hierarchy carrying CTRLS, or
 * NULL (it stays at the container's); two of its controllers given
 * different paths are an error. */
static int
ctrl_path (struct sub_args *a, const char *ctrls, const char **path, const char **arg, shim_error_t *err)
{
  size_t i;

  *path = a->all;
  *arg = a->all_arg;
  for (i = 0; i < a->n; i++)
    {
      size_t len = strlen (a->c[i].name);
      const char *l;
      bool has = false;
      for (l = ctrls; *l && !has; l += strcspn (l, ",") + (l[strcspn (l, ",")] == ','))
        has = strcspn (l, ",") == len && strncmp (l, a->c[i].name, len) == 0;
      if (!has)
        continue;
      a->c[i].used = true;
      if (*path && strcmp (*path, a->c[i].path) != 0)
        return shim_error_plain (err, EINVAL,
                                 "invalid --cgroup argument(s): %s and %s: the controllers of one hierarchy (%s) "
                                 "share one cgroup",
                                 *arg, a->c[i].arg, ctrls);
      *path = a->c[i].path;
      *arg = a->c[i].arg;
    }
  return 0;
}

static int
sub_open (const struct cgroup *cg, char *const *args, size_t n, struct cgroup *out, shim_error_t *err)
{
  __attribute__ ((cleanup (sub_args_free))) struct sub_args a = { 0 };
  size_t i;

  if (parse_args (args, n, &a, err) < 0)
    return -1;
  if (cg->manager == NULL)
    return shim_error_plain (err, ENOENT, "%s: the container has no cgroup", args[0]);
  out->manager = cg->manager;
  out->path = strdup (cg->path);
  if (out->path == NULL)
    return shim_error_errno (err, "sub-cgroup");
  /* CLONE_INTO_CGROUP's directory: the cgroup2 one (v2, systemd, the
   * unified one on a hybrid host), which runc's PATH form moves too. */
  if (cg->mountfd >= 0 && (out->mountfd = fcntl (cg->mountfd, F_DUPFD_CLOEXEC, 0)) < 0)
    return shim_error_errno (err, "cgroup `%s`", cg->path);
  out->dirfd = view_dir (cg->dirfd, cg->path, a.all, a.all_arg, cg->v1 ? "cgroup2" : "the cgroup", err);
  if (out->dirfd < 0 && (a.all || cg->dirfd >= 0))
    return -1;
  if (cg->v1)
    {
      out->v1 = calloc (1, sizeof (*out->v1));
      if (out->v1 == NULL)
        return shim_error_errno (err, "sub-cgroup");
      for (i = 0; i < cg->v1->n; i++)
        {
          const struct cgroup_v1_dir *h = &cg->v1->h[i];
          struct cgroup_v1_dir *o = &out->v1->h[out->v1->n++];
          const char *path, *arg;
          o->mountfd = o->dirfd = -1;
          o->ctrls = strdup (h->ctrls);
          if (o->ctrls == NULL)
            return shim_error_errno (err, "sub-cgroup");
          if (ctrl_path (&a, h->ctrls, &path, &arg, err) < 0)
            return -1;
          o->dirfd = view_dir (h->dirfd, h->path ? h->path : cg->path, path, arg, h->ctrls, err);
          if (o->dirfd < 0 && (path || h->dirfd >= 0))
            return -1;
        }
    }
  /* runc's words for a controller no hierarchy of the container carries
   * (on cgroup v2: any). */
  for (i = 0; i < a.n; i++)
    if (!a.c[i].used)
      return shim_error_plain (err, EINVAL, "%s: unknown controller %s%s", a.c[i].arg, a.c[i].name,
                               cg->v1 ? "" : " (cgroup v2 has one hierarchy: give PATH alone)");
  return 0;
}

int
cgroup_sub_open (const struct cgroup *cg, char *const *args, size_t n, struct cgroup *out, shim_error_t *err)
{
  *out = (struct cgroup){ .dirfd = -1, .mountfd = -1 };
  if (sub_open (cg, args, n, out, err) < 0)
    {
      cgroup_release (out);
      return -1;
    }
  return 0;
}

struct procs_text
{
  char *text;
  size_t len;
};

/* CHILD's cgroup.procs appended to the text, then its sub-cgroups'. */
static int
procs_below (int dirfd, const char *name, int child, const char *path, int depth, void *arg, shim_error_t *err)
{
  struct procs_text *t = arg;
  cleanup_free char *procs = NULL;
  size_t plen = 0;

  (void) dirfd;
  (void) name;
  if (util_read_file_at (child, "cgroup.procs", &procs, &plen, err) < 0)
    {
      /* A sub-cgroup removed under us has no processes left to list. */
      if (depth == 0 || (*err)->status != ENOENT)
        return -1;
      shim_error_release (err);
      return 0;
    }
  if (plen)
    {
      char *nt = realloc (t->text, t->len + plen + 2);
      if (nt == NULL)
        return shim_error_errno (err, "cgroup `%s`", path);
      t->text = nt;
      memcpy (nt + t->len, procs, plen);
      t->len += plen;
      if (nt[t->len - 1] != '\n')
        nt[t->len++] = '\n';
      nt[t->len] = '\0';
    }
  return cgroup_walk_children (child, path, depth, procs_below, t, err);
}

int
cgroup_procs_all (const struct cgroup *cg, char **text, shim_error_t *err)
{
  struct procs_text t = { NULL, 0 };

  *text = NULL;
  if (cg->dirfd < 0)
    return shim_error_plain (err, ENOENT, "cgroup `%s` is gone", cg->path ? cg->path : "");
  if (procs_below (-1, NULL, cg->dirfd, cg->path, 0, &t, err) < 0)
    {
      free (t.text);
      return -1;
    }
  if (t.text == NULL && (t.text = strdup ("")) == NULL)
    return shim_error_errno (err, "cgroup `%s`", cg->path);
  *text = t.text;
  return 0;
}
