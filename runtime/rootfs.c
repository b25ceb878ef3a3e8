/* SPDX-License-Identifier: Apache-2.0 */
/* Mounts and the switch into the container's root.
 *
 * Every target inside the rootfs is resolved with openat2(RESOLVE_IN_ROOT)
 * against a file descriptor of the rootfs, and the mount is made on that
 * file descriptor (/proc/self/fd/N), so a symlink planted in the image, or
 * swapped in while we work, cannot send a mount outside the rootfs. */
#include "runtime/rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/util.h"

static int
openat2_in_root (int rootfd, const char *path, int flags, shim_error_t *err)
{
  struct open_how how = {
    .flags = (uint64_t) (flags | O_CLOEXEC),
    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
  };
  int fd;

  while (*path == '/')
    path++;
  if (*path == '\0')
    path = ".";
  do
    fd = (int) syscall (SYS_openat2, rootfd, path, &how, sizeof (how));
  while (fd < 0 && errno == EAGAIN);
  if (fd < 0)
    return shim_error_errno (err, "open `/%s` in the rootfs", path);
  return fd;
}

/* Make every component of PATH exist inside the root: directories, and the
 * last one a directory or an empty file.  Returns an O_PATH fd of it. */
static int
ensure_in_root (int rootfd, const char *path, bool last_is_file, shim_error_t *err)
{
  cleanup_free char *dup = strdup (path);
  char *p;

  if (dup == NULL)
    return shim_error_errno (err, "%s", path);
  for (p = dup;; p++)
    {
      bool last = *p == '\0';
      if (p != dup && (*p == '/' || last) && p[-1] != '/')
        {
          cleanup_close int parent = -1;
          char saved = *p, *slash;
          int fd;
          shim_error_t tmp = NULL;

          *p = '\0';
          fd = openat2_in_root (rootfd, dup, O_PATH, &tmp);
          if (fd < 0 && tmp->status == ENOENT)
            {
              shim_error_release (&tmp);
              slash = strrchr (dup, '/');
              *slash = '\0';
              parent = openat2_in_root (rootfd, dup, O_PATH | O_DIRECTORY, err);
              *slash = '/';
              if (parent < 0)
                return -1;
              if (last && last_is_file)
                {
                  cleanup_close int f = openat (parent, slash + 1,
                                                O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
                  if (f < 0 && errno != EEXIST)
                    return shim_error_errno (err, "create `%s` in the rootfs", dup);
                }
              else if (mkdirat (parent, slash + 1, 0755) < 0 && errno != EEXIST)
                return shim_error_errno (err, "mkdir `%s` in the rootfs", dup);
              fd = openat2_in_root (rootfd, dup, O_PATH, err);
            }
          else if (fd < 0)
            return shim_error_take (err, &tmp);
          if (fd < 0)
            return -1;
          if (last)
            return fd;
          close (fd);
          *p = saved;
        }
      if (last)
        break;
    }
  return openat2_in_root (rootfd, "/", O_PATH | O_DIRECTORY, err);
}

/* procfs and sysfs are where the runtime later writes (sysctls, LSM
 * attributes) and what it masks: an image that makes /proc a symlink, even
 * one that stays inside the rootfs, is redirecting them (CVE-2019-19921).
 * A missing path is fine: it is created as a directory. */
static int
refuse_symlinks (int rootfd, const char *path, shim_error_t *err)
{
  struct open_how how = {
    .flags = O_PATH | O_CLOEXEC,
    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS,
  };
  const char *rel = path;
  cleanup_close int fd = -1;

  while (*rel == '/')
    rel++;
  do
    fd = (int) syscall (SYS_openat2, rootfd, *rel ? rel : ".", &how, sizeof (how));
  while (fd < 0 && errno == EAGAIN);
  if (fd < 0 && errno == ELOOP)
    return shim_error_plain (err, ELOOP, "`%s` is a symlink (or goes through one) in the rootfs: refused", path);
  if (fd < 0 && errno != ENOENT)
    return shim_error_errno (err, "open `%s` in the rootfs", path);
  return 0;
}

static void
fd_path (char *buf, size_t len, int fd)
{
  snprintf (buf, len, "/proc/self/fd/%d", fd);
}

static int
do_mount (const char *src, int target_fd, const char *dest, const char *type, unsigned long flags,
          const char *data, shim_error_t *err)
{
  char target[64];
  fd_path (target, sizeof (target), target_fd);
  if (mount (src, target, type, flags, data) < 0)
    return shim_error_errno (err, "mount `%s` on `%s` (type %s)", src ? src : "none", dest,
                             type ? type : "bind");
  return 0;
}

/* A bind remount of the mount at TARGET_FD, locked flags kept. */
static int
do_remount (int target_fd, const char *dest, unsigned long flags, shim_error_t *err)
{
  char target[64];
  fd_path (target, sizeof (target), target_fd);
  if (rootfs_remount (target, flags) < 0)
    return shim_error_errno (err, "mount `none` on `%s` (type bind)", dest);
  return 0;
}

/* The recursive options (rro, ...) on the mount at FD and every mount
 * under it. */
static int
set_attr_tree (int fd, const char *dest, unsigned long long set, unsigned long long clr, shim_error_t *err)
{
  struct mount_attr attr = { .attr_set = set, .attr_clr = clr };
  if (mount_setattr (fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof (attr)) < 0)
    return shim_error_errno (err, "set the recursive options of `%s`", dest);
  return 0;
}

/* Bind mounts ignore most flags on the first call: they take effect on a
 * remount of the new mount (mount(2), "Creating a bind mount"). */
static const unsigned long REMOUNT_FLAGS =
    MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME
    | MS_STRICTATIME;

/* The sysfs and cgroup2 fallback: the host's HOST (/sys, the cgroup2
 * mount) bound recursively on TARGET (an fd this takes over), M's
 * ro/nosuid/nodev/noexec set on the whole tree: a bind remount would make
 * only the top read-only and leave the host's /sys/fs/cgroup/... under it
 * writable (seen in mountinfo). */
static int
bind_host_fs (int rootfd, int target, const struct shim_mount *m, const char *host, shim_error_t *err)
{
  cleanup_close int fd = target;
  struct mount_attr attr = { 0 };

  if (do_mount (host, fd, m->destination, NULL, MS_BIND | MS_REC, NULL, err) < 0)
    return -1;
  close (fd);
  fd = openat2_in_root (rootfd, m->destination, O_PATH, err);
  if (fd < 0)
    return -1;
  attr.attr_set = (m->flags & MS_RDONLY ? MOUNT_ATTR_RDONLY : 0) | (m->flags & MS_NOSUID ? MOUNT_ATTR_NOSUID : 0)
                  | (m->flags & MS_NODEV ? MOUNT_ATTR_NODEV : 0) | (m->flags & MS_NOEXEC ? MOUNT_ATTR_NOEXEC : 0);
  if (attr.attr_set && mount_setattr (fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof (attr)) < 0)
    return shim_error_errno (err, "set the options of `%s` on the host's %s bound there", m->destination, host);
  return 0;
}

static bool
dev_readonly (const struct shim_mount *m)
{
  return !m->is_bind && (m->flags & MS_RDONLY) && strcmp (m->destination, "/dev") == 0;
}

/* runc's rule for a tmpfs on a directory the image already has: the
 * directory's mode (sticky and set-id bits too) comes first in the data, so
 * an image's 0710 survives the mount while a mode= of the options, parsed
 * later by the kernel, still wins.  A directory made for the mount keeps
 * tmpfs' own default (1777), as under runc.  *DATA is NULL then. */
static int
tmpfs_data (int rootfd, const struct shim_mount *m, char **data, shim_error_t *err)
{
  cleanup_close int fd = -1;
  shim_error_t tmp = NULL;
  struct stat st;

  *data = NULL;
  fd = openat2_in_root (rootfd, m->destination, O_PATH, &tmp);
  if (fd < 0 && tmp->status == ENOENT)
    {
      shim_error_release (&tmp);
      return 0;
    }
  if (fd < 0)
    return shim_error_take (err, &tmp);
  if (fstat (fd, &st) < 0)
    return shim_error_errno (err, "stat `%s` in the rootfs", m->destination);
  if (asprintf (data, "mode=%04o%s%s", (unsigned int) (st.st_mode & 07777), m->data ? "," : "",
                m->data ? m->data : "") < 0)
    {
      *data = NULL;
      return shim_error_errno (err, "the data of the tmpfs on `%s`", m->destination);
    }
  return 0;
}

static int
mount_one (int rootfd, const struct shim_config *cfg, size_t i, int tree, shim_error_t *err)
{
  const struct shim_mount *m = &cfg->mounts[i];
  cleanup_close int target = -1;
  cleanup_free char *src = NULL;
  cleanup_free char *data = NULL;
  const char *type = m->type;
  bool is_file = false;

  if (m->is_bind)
    {
      struct stat st;
      if (m->source[0] == '/')
        src = strdup (m->source);
      else if (asprintf (&src, "%s/%s", cfg->bundle, m->source) < 0)
        src = NULL;
      if (src == NULL)
        return shim_error_errno (err, "mounts[%zu]", i);
      if ((tree >= 0 ? fstat (tree, &st) : stat (src, &st)) < 0)
        return shim_error_errno (err, "mounts[%zu].source `%s`", i, m->source);
      is_file = !S_ISDIR (st.st_mode);
      type = NULL;
    }
  else if (strcmp (type, "cgroup") == 0)
    /* The container sees the unified hierarchy; v1 is not supported. */
    type = "cgroup2";

  if (type && (strcmp (type, "proc") == 0 || strcmp (type, "sysfs") == 0)
      && refuse_symlinks (rootfd, m->destination, err) < 0)
    return shim_error_prefix (err, "mounts[%zu]", i);
  if (type && strcmp (type, "tmpfs") == 0 && tmpfs_data (rootfd, m, &data, err) < 0)
    return shim_error_prefix (err, "mounts[%zu]", i);
  target = ensure_in_root (rootfd, m->destination, is_file, err);
  if (target < 0)
    return shim_error_prefix (err, "mounts[%zu]", i);

  if (m->is_bind)
    {
      /* The runtime's copy of the source (userns.c), where it sent one. */
      if (tree >= 0
          && move_mount (tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
        return shim_error_errno (err, "mounts[%zu]: move the runtime's copy of `%s` on `%s`", i, m->source,
                                 m->destination);
      if (tree < 0 && do_mount (src, target, m->destination, NULL, MS_BIND | (m->flags & MS_REC), NULL, err) < 0)
        return shim_error_prefix (err, "mounts[%zu]", i);
      /* Reopen: the fd still names the covered directory, not the new
       * mount, and both the remount and a propagation change below must
       * be made on the new mount. */
      close (target);
      target = openat2_in_root (rootfd, m->destination, O_PATH, err);
      if (target < 0)
        return shim_error_prefix (err, "mounts[%zu]", i);
      if ((m->flags & REMOUNT_FLAGS)
          && do_remount (target, m->destination, MS_REMOUNT | MS_BIND | (m->flags & REMOUNT_FLAGS), err) < 0)
        return shim_error_prefix (err, "mounts[%zu]: remount with its options", i);
      /* The remount above reaches only the top of an rbind: the mounts
       * under it would stay writable, so `rbind,ro` is applied to the
       * whole tree (as rro would be). */
      if ((m->flags & MS_REC) && (m->flags & MS_RDONLY)
          && set_attr_tree (target, m->destination, MOUNT_ATTR_RDONLY, 0, err) < 0)
        return shim_error_prefix (err, "mounts[%zu]", i);
    }
  else
    {
      const char *source = m->source ? m->source : type;
      unsigned long flags = m->flags & ~(MS_BIND | MS_REC);
      shim_error_t tmp = NULL;
      /* A read-only /dev is made so at the end (rootfs_finalize): the
       * mounts and the nodes that go in it first need it writable. */
      if (dev_readonly (m))
        flags &= ~MS_RDONLY;
      if (do_mount (source, target, m->destination, type, flags, data ? data : m->data, &tmp) < 0)
        {
          int e = tmp->status;
          /* A fresh sysfs needs a network namespace of the user namespace
           * (the kernel answers EPERM without one; runc falls back on EPERM
           * and EBUSY): then the host's /sys, bound recursively, with the
           * mount's own flags on top. */
          const char *host = strcmp (type, "sysfs") == 0 ? "/sys" : NULL;
          /* A fresh cgroup2 needs a cgroup namespace of the user
           * namespace: without one, the host's hierarchy bound there
           * (runc's fallback, on the same errors). */
          if (strcmp (type, "cgroup2") == 0)
            host = cgroup_mount_point ();
          if (host && (e == EPERM || e == EBUSY))
            {
              shim_error_release (&tmp);
              if (bind_host_fs (rootfd, steal_fd (&target), m, host, err) < 0)
                return shim_error_prefix (err, "mounts[%zu]", i);
              return 0;
            }
          shim_error_take (err, &tmp);
          /* procfs in a user namespace wants a pid namespace of its own. */
          if (strcmp (type, "proc") == 0 && e == EPERM && config_namespace (cfg, CLONE_NEWUSER))
            return shim_error_prefix (err, "mounts[%zu] (in a user namespace, /proc needs a `pid` entry in "
                                      "linux.namespaces)", i);
          return shim_error_prefix (err, "mounts[%zu]", i);
        }
      close (target);
      target = openat2_in_root (rootfd, m->destination, O_PATH, err);
      if (target < 0)
        return shim_error_prefix (err, "mounts[%zu]", i);
      if (strcmp (type, "proc") == 0 || strcmp (type, "sysfs") == 0)
        {
          /* A /proc or /sys that is not the real thing (say, a tmpfs
           * planted over it by a racing bind) must not be trusted for
           * masking and sysctls. */
          struct statfs sfs;
          bool proc = strcmp (type, "proc") == 0;
          if (fstatfs (target, &sfs) < 0)
            return shim_error_errno (err, "mounts[%zu]: statfs `%s`", i, m->destination);
          if (sfs.f_type != (proc ? PROC_SUPER_MAGIC : SYSFS_MAGIC))
            return shim_error_plain (err, EPERM, "mounts[%zu]: `%s` is not a %s after mounting it", i,
                                     m->destination, type);
        }
    }
  if ((m->rec_attr_set || m->rec_attr_clr)
      && set_attr_tree (target, m->destination, m->rec_attr_set, m->rec_attr_clr, err) < 0)
    return shim_error_prefix (err, "mounts[%zu]", i);
  if (m->propagation && do_mount (NULL, target, m->destination, NULL, m->propagation, NULL, err) < 0)
    return shim_error_prefix (err, "mounts[%zu]: set propagation", i);
  return 0;
}

static const struct
{
  const char *name;
  unsigned int major, minor;
} default_devices[] = {
  { "null", 1, 3 }, { "zero", 1, 5 }, { "full", 1, 7 },
  { "random", 1, 8 }, { "urandom", 1, 9 }, { "tty", 5, 0 },
};

static const struct
{
  const char *target, *name;
} default_symlinks[] = {
  { "/proc/self/fd", "fd" },    { "/proc/self/fd/0", "stdin" }, { "/proc/self/fd/1", "stdout" },
  { "/proc/self/fd/2", "stderr" }, { "pts/ptmx", "ptmx" },
};

static bool
mounts_host_dev (const struct shim_config *cfg)
{
  size_t i;
  for (i = 0; i < cfg->n_mounts; i++)
    if (cfg->mounts[i].is_bind && strcmp (cfg->mounts[i].destination, "/dev") == 0)
      return true;
  return false;
}

/* Create the node PATH (absolute, inside the root): TYPE is S_IFCHR,
 * S_IFBLK or S_IFIFO.  Where mknod is refused (9p answers ENXIO, a user
 * namespace EPERM) the host's node of the same path is bind-mounted onto
 * an empty file instead, as runc does; *bound says so (its owner and mode
 * are then the host's).  An existing node is left alone: 1. */
static int
make_node (int rootfd, const char *path, mode_t type, dev_t dev, mode_t mode, bool *bound, shim_error_t *err)
{
  cleanup_free char *dir = strdup (path);
  cleanup_close int dfd = -1;
  cleanup_close int f = -1;
  cleanup_close int target = -1;
  const char *name;
  char *slash;

  *bound = false;
  if (dir == NULL || (slash = strrchr (dir, '/')) == NULL)
    return shim_error_plain (err, EINVAL, "`%s` is not an absolute path", path);
  *slash = '\0';
  name = slash + 1;
  if (*name == '\0' || strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
    return shim_error_plain (err, EINVAL, "`%s` does not name a file", path);
  dfd = ensure_in_root (rootfd, *dir ? dir : "/", false, err);
  if (dfd < 0)
    return -1;
  close (dfd);
  dfd = openat2_in_root (rootfd, *dir ? dir : "/", O_RDONLY | O_DIRECTORY, err);
  if (dfd < 0)
    return -1;
  if (mknodat (dfd, name, type | mode, dev) == 0)
    {
      /* mknod applies the umask; the mode asked for is exact. */
      if (fchmodat (dfd, name, mode, 0) < 0)
        return shim_error_errno (err, "chmod `%s`", path);
      return 0;
    }
  if (errno == EEXIST)
    return 1;
  if (type == S_IFIFO || (errno != EPERM && errno != ENXIO && errno != EOPNOTSUPP))
    return shim_error_errno (err, "mknod `%s`", path);
  f = openat (dfd, name, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (f < 0)
    return shim_error_errno (err, "create `%s`", path);
  target = openat (dfd, name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
  if (target < 0)
    return shim_error_errno (err, "open `%s`", path);
  if (do_mount (path, target, path, NULL, MS_BIND, NULL, err) < 0)
    return shim_error_prefix (err, "mknod refused, so bind the host's node");
  *bound = true;
  return 0;
}

static bool
listed_device (const struct shim_config *cfg, const char *path)
{
  size_t i;
  for (i = 0; i < cfg->n_devices; i++)
    if (strcmp (cfg->devices[i].path, path) == 0)
      return true;
  return false;
}

/* The nodes every container gets (runtime-spec "Default Devices"), except
 * those linux.devices gives itself (runc lets the config's win). */
static int
create_default_dev (int rootfd, const struct shim_config *cfg, shim_error_t *err)
{
  cleanup_close int devfd = ensure_in_root (rootfd, "/dev", false, err);
  size_t i;

  if (devfd < 0)
    return -1;
  close (devfd);
  devfd = openat2_in_root (rootfd, "/dev", O_RDONLY | O_DIRECTORY, err);
  if (devfd < 0)
    return -1;
  for (i = 0; i < sizeof (default_devices) / sizeof (default_devices[0]); i++)
    {
      char path[64];
      bool bound;
      snprintf (path, sizeof (path), "/dev/%s", default_devices[i].name);
      if (listed_device (cfg, path))
        continue;
      if (make_node (rootfd, path, S_IFCHR, makedev (default_devices[i].major, default_devices[i].minor), 0666,
                     &bound, err)
          < 0)
        return -1;
    }
  for (i = 0; i < sizeof (default_symlinks) / sizeof (default_symlinks[0]); i++)
    if (symlinkat (default_symlinks[i].target, devfd, default_symlinks[i].name) < 0 && errno != EEXIST)
      return shim_error_errno (err, "symlink `/dev/%s`", default_symlinks[i].name);
  if (access ("/proc/kcore", F_OK) == 0 && symlinkat ("/proc/kcore", devfd, "core") < 0 && errno != EEXIST)
    return shim_error_errno (err, "symlink `/dev/core`");
  return 0;
}

/* linux.devices: each node with its mode (0666 when not given, as runc)
 * and owner (0:0, ids of the container). */
static int
create_config_devices (int rootfd, const struct shim_config *cfg, shim_error_t *err)
{
  size_t i;
  for (i = 0; i < cfg->n_devices; i++)
    {
      const struct shim_device *d = &cfg->devices[i];
      mode_t type = d->type == 'b' ? S_IFBLK : d->type == 'p' ? S_IFIFO : S_IFCHR;
      mode_t mode = d->has_file_mode ? d->file_mode : 0666;
      cleanup_close int fd = -1;
      bool bound;
      int r;

      /* /dev/ptmx stays the link to the container's own devpts (runc
       * makes it so whatever the config lists): a node 5:2 there would be
       * redundant at best. */
      if (strcmp (d->path, "/dev/ptmx") == 0)
        continue;
      r = make_node (rootfd, d->path, type, makedev (d->major, d->minor), mode, &bound, err);
      if (r < 0)
        return shim_error_prefix (err, "linux.devices[%zu]", i);
      if (r > 0)
        return shim_error_plain (err, EEXIST, "linux.devices[%zu]: `%s` already exists in the container", i,
                                 d->path);
      if (bound)
        continue;
      fd = openat2_in_root (rootfd, d->path, O_PATH | O_NOFOLLOW, err);
      if (fd < 0)
        return shim_error_prefix (err, "linux.devices[%zu]", i);
      if (fchownat (fd, "", d->has_uid ? d->uid : 0, d->has_gid ? d->gid : 0, AT_EMPTY_PATH) < 0)
        return shim_error_errno (err, "linux.devices[%zu]: chown `%s` to %u:%u", i, d->path,
                                 (unsigned) (d->has_uid ? d->uid : 0), (unsigned) (d->has_gid ? d->gid : 0));
    }
  return 0;
}

/* mountinfo's escapes (\040 for a space, ...) undone in place. */
static void
unescape_octal (char *s)
{
  char *w = s;
  for (; *s; s++)
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7')
      {
        *w++ = (char) (((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
        s += 3;
      }
    else
      *w++ = *s;
  *w = '\0';
}

static bool
under (const char *path, const char *dir)
{
  size_t n = strlen (dir);
  return strncmp (path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* chroot leaves the old root in the mount namespace, and with it the
 * host's /proc and /sys, unmasked: the kernel lets anyone who makes a user
 * namespace mount a fresh procfs (or sysfs) when one is fully visible in
 * the mount namespace, and that one would be.  So every whole proc or
 * sysfs outside ROOT is detached first, or covered where that is refused
 * (runc's msMoveRoot).  Our mounts are private: nothing reaches the host. */
static int
hide_host_procfs (const char *root, shim_error_t *err)
{
  cleanup_free char *real = realpath (root, NULL);
  cleanup_free char *line = NULL;
  size_t cap = 0;
  FILE *f;
  int ret = 0;

  if (real == NULL)
    return shim_error_errno (err, "--no-pivot: resolve `%s`", root);
  f = fopen ("/proc/self/mountinfo", "re");
  if (f == NULL)
    return shim_error_errno (err, "--no-pivot: open /proc/self/mountinfo");
  while (ret == 0 && getline (&line, &cap, f) > 0)
    {
      char mroot[4096], mp[4096], fstype[64];
      const char *sep = strstr (line, " - ");
      if (sep == NULL || sscanf (line, "%*s %*s %*s %4095s %4095s", mroot, mp) != 2
          || sscanf (sep + 3, "%63s", fstype) != 1)
        continue;
      unescape_octal (mroot);
      unescape_octal (mp);
      if (strcmp (mroot, "/") != 0 || (strcmp (fstype, "proc") != 0 && strcmp (fstype, "sysfs") != 0)
          || under (mp, real))
        continue;
      if (umount2 (mp, MNT_DETACH) == 0 || errno == ENOENT)
        continue;
      /* A parent already detached took it along (EINVAL: no longer a
       * mount point), or it is locked (EPERM): cover what is left. */
      if (errno != EINVAL && errno != EPERM)
        ret = shim_error_errno (err, "--no-pivot: detach the host's `%s`", mp);
      else if (mount ("tmpfs", mp, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=0") < 0
               && errno != ENOENT)
        ret = shim_error_errno (err, "--no-pivot: cover the host's `%s`", mp);
    }
  fclose (f);
  return ret;
}

static int
enter_root (const struct shim_config *cfg, const struct rootfs_opts *opts, shim_error_t *err)
{
  if (opts->no_pivot && hide_host_procfs (cfg->root_path, err) < 0)
    return -1;
  if (chdir (cfg->root_path) < 0)
    return shim_error_errno (err, "chdir `%s`", cfg->root_path);
  if (opts->no_pivot)
    {
      if (mount (cfg->root_path, "/", NULL, MS_MOVE, NULL) < 0)
        return shim_error_errno (err, "move the rootfs to `/`");
      if (chroot (".") < 0)
        return shim_error_errno (err, "chroot `%s`", cfg->root_path);
    }
  else
    {
      /* pivot_root(".", ".") stacks the old root on top of the new one;
       * detaching "." then drops it without needing a directory for it. */
      if (syscall (SYS_pivot_root, ".", ".") < 0)
        return shim_error_errno (err, "pivot_root `%s`", cfg->root_path);
      if (umount2 (".", MNT_DETACH) < 0)
        return shim_error_errno (err, "detach the old root");
    }
  if (chdir ("/") < 0)
    return shim_error_errno (err, "chdir `/`");
  return 0;
}

int
rootfs_mount (const struct shim_config *cfg, const int *mount_fds, shim_error_t *err)
{
  cleanup_close int rootfd = -1;
  size_t i;

  /* Nothing mounted from here on may propagate back to the host. */
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return shim_error_errno (err, "make `/` private");
  /* pivot_root needs the new root to be a mount point. */
  if (mount (cfg->root_path, cfg->root_path, NULL, MS_BIND | MS_REC, NULL) < 0)
    return shim_error_errno (err, "bind the rootfs `%s`", cfg->root_path);
  rootfd = open (cfg->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return shim_error_errno (err, "open the rootfs `%s`", cfg->root_path);

  for (i = 0; i < cfg->n_mounts; i++)
    if (mount_one (rootfd, cfg, i, mount_fds ? mount_fds[i] : -1, err) < 0)
      return -1;
  /* Never mknod into the host's own /dev. */
  if (!mounts_host_dev (cfg) && (create_default_dev (rootfd, cfg, err) < 0 || create_config_devices (rootfd, cfg, err) < 0))
    return -1;
  return 0;
}

int
rootfs_enter (const struct shim_config *cfg, const struct rootfs_opts *opts, shim_error_t *err)
{
  return enter_root (cfg, opts, err);
}

/* Paths under the new root, resolved without leaving it. */
static int
open_new_root_path (const char *path, shim_error_t *err)
{
  cleanup_close int root = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0)
    return shim_error_errno (err, "open `/`");
  return openat2_in_root (root, path, O_PATH, err);
}

int
rootfs_chdir (const char *cwd, shim_error_t *err)
{
  /* Resolved inside the root, magic links refused: a cwd of
   * /proc/self/fd/N would otherwise land on a directory of the host that the
   * runtime's caller left open (CVE-2024-21626). */
  cleanup_error shim_error_t tmp = NULL;
  cleanup_close int fd = open_new_root_path (cwd, &tmp);
  if (fd < 0)
    return shim_error (err, tmp->status, "process.cwd `%s`", cwd);
  if (fchdir (fd) < 0)
    return shim_error_errno (err, "process.cwd `%s`", cwd);
  return 0;
}

static int
mask_path (const char *path, shim_error_t *err)
{
  shim_error_t tmp = NULL;
  cleanup_close int fd = open_new_root_path (path, &tmp);
  struct stat st;

  if (fd < 0)
    {
      /* Masking what does not exist is a no-op, as in runc. */
      if (tmp->status == ENOENT)
        {
          shim_error_release (&tmp);
          return 0;
        }
      shim_error_take (err, &tmp);
      return shim_error_prefix (err, "linux.maskedPaths");
    }
  if (fstat (fd, &st) < 0)
    return shim_error_errno (err, "linux.maskedPaths: stat `%s`", path);
  if (S_ISDIR (st.st_mode))
    return do_mount ("tmpfs", fd, path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                     "size=0,mode=0555", err);
  return do_mount ("/dev/null", fd, path, NULL, MS_BIND, NULL, err);
}

static int
readonly_path (const char *path, shim_error_t *err)
{
  shim_error_t tmp = NULL;
  cleanup_close int fd = open_new_root_path (path, &tmp);

  if (fd < 0)
    {
      if (tmp->status == ENOENT)
        {
          shim_error_release (&tmp);
          return 0;
        }
      shim_error_take (err, &tmp);
      return shim_error_prefix (err, "linux.readonlyPaths");
    }
  if (do_mount (path, fd, path, NULL, MS_BIND | MS_REC, NULL, err) < 0)
    return -1;
  close (fd);
  fd = open_new_root_path (path, err);
  if (fd < 0)
    return -1;
  return do_remount (fd, path, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, err);
}

static int
write_sysctl (const char *key, const char *value, shim_error_t *err)
{
  cleanup_free char *path = NULL;
  cleanup_close int dir = open ("/proc/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *p;

  if (dir < 0)
    return shim_error_errno (err, "linux.sysctl.%s: open /proc/sys", key);
  path = strdup (key);
  if (path == NULL)
    return shim_error_errno (err, "linux.sysctl.%s", key);
  for (p = path; *p; p++)
    if (*p == '.')
      *p = '/';
  if (util_write_file_at (dir, path, value, strlen (value), err) < 0)
    return shim_error_prefix (err, "linux.sysctl.%s", key);
  return 0;
}

/* The /dev mount itself read-only, now that its nodes and mount points
 * are made; the mounts under it keep their own options. */
static int
finalize_dev (const struct shim_config *cfg, shim_error_t *err)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
  cleanup_close int fd = -1;
  size_t i;

  for (i = 0; i < cfg->n_mounts && !dev_readonly (&cfg->mounts[i]); i++)
    ;
  if (i == cfg->n_mounts)
    return 0;
  fd = open_new_root_path ("/dev", err);
  if (fd < 0)
    return shim_error_prefix (err, "mounts[%zu]", i);
  if (mount_setattr (fd, "", AT_EMPTY_PATH, &attr, sizeof (attr)) < 0)
    return shim_error_errno (err, "mounts[%zu]: make `/dev` read-only", i);
  return 0;
}

int
rootfs_finalize (const struct shim_config *cfg, shim_error_t *err)
{
  size_t i;

  if (finalize_dev (cfg, err) < 0)
    return -1;

  /* sysctls first: readonlyPaths usually covers /proc/sys. */
  for (i = 0; i < cfg->n_sysctl; i++)
    if (write_sysctl (cfg->sysctl[i].key, cfg->sysctl[i].value, err) < 0)
      return -1;
  for (i = 0; i < cfg->n_masked_paths; i++)
    if (mask_path (cfg->masked_paths[i], err) < 0)
      return -1;
  for (i = 0; i < cfg->n_readonly_paths; i++)
    if (readonly_path (cfg->readonly_paths[i], err) < 0)
      return -1;
  if (cfg->rootfs_propagation && mount (NULL, "/", NULL, cfg->rootfs_propagation, NULL) < 0)
    return shim_error_errno (err, "linux.rootfsPropagation: set it on `/`");
  if (cfg->root_readonly
      && rootfs_remount ("/", MS_REMOUNT | MS_BIND | MS_RDONLY) < 0)
    return shim_error_errno (err, "root.readonly: remount `/` read-only");
  return 0;
}
