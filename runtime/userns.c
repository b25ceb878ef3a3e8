/* SPDX-License-Identifier: Apache-2.0 */
/* The maps are written by the parent because only a process outside the
 * namespace, with CAP_SETUID/CAP_SETGID over the host ids, may map more
 * than its own id (user_namespaces(7)); the child cannot do it for itself.
 * No newuidmap: nothing is run on the host. */
#include "runtime/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/util.h"

/* The one message of the protocol: "your maps are written", then the
 * index in mounts[] of each file descriptor that comes with it. */
#define MAPS_WRITTEN 'M'

/* SCM_MAX_FD: what one message can carry.  Mounts past it fall back to
 * their path. */
#define MAX_MOUNT_FDS 253

bool
userns_is_new (const struct shim_config *cfg)
{
  const struct shim_namespace *u = config_namespace (cfg, CLONE_NEWUSER);
  return u != NULL && u->path == NULL;
}

static int
write_map (pid_t pid, const char *file, const struct shim_idmap *m, size_t n, const char *json_path,
           shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  char path[64];
  size_t len = 0, i;

  /* 340 lines of three 10-digit numbers fit; the kernel wants them all in
   * one write. */
  buf = malloc (n * 34 + 1);
  if (buf == NULL)
    return shim_error_errno (err, "%s", json_path);
  for (i = 0; i < n; i++)
    len += (size_t) sprintf (buf + len, "%u %u %u\n", m[i].container_id, m[i].host_id, m[i].size);
  snprintf (path, sizeof (path), "/proc/%d/%s", (int) pid, file);
  if (util_write_file_at (AT_FDCWD, path, buf, len, err) < 0)
    return shim_error_prefix (err, "%s", json_path);
  return 0;
}

/* A detached copy of each bind mount's source, opened as the runtime (the
 * child opens what it cannot, and reports it). */
static size_t
open_sources (const struct shim_config *cfg, int *fds, uint32_t *idx)
{
  size_t i, n = 0;

  for (i = 0; i < cfg->n_mounts && n < MAX_MOUNT_FDS; i++)
    {
      const struct shim_mount *m = &cfg->mounts[i];
      cleanup_free char *src = NULL;
      int fd;

      if (!m->is_bind)
        continue;
      if (m->source[0] == '/')
        src = strdup (m->source);
      else if (asprintf (&src, "%s/%s", cfg->bundle, m->source) < 0)
        src = NULL;
      if (src == NULL)
        continue;
      fd = open_tree (AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (m->flags & MS_REC ? AT_RECURSIVE : 0));
      if (fd < 0)
        continue;
      fds[n] = fd;
      idx[n++] = (uint32_t) i;
    }
  return n;
}

static int
send_maps_written (int sync_fd, const struct shim_config *cfg, shim_error_t *err)
{
  int fds[MAX_MOUNT_FDS];
  uint32_t idx[MAX_MOUNT_FDS];
  char buf[1 + sizeof (idx)];
  union
  {
    struct cmsghdr h;
    char c[CMSG_SPACE (sizeof (fds))];
  } u;
  struct iovec iov = { .iov_base = buf };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
  size_t n = open_sources (cfg, fds, idx), i;
  ssize_t r;

  buf[0] = MAPS_WRITTEN;
  memcpy (buf + 1, idx, n * sizeof (uint32_t));
  iov.iov_len = 1 + n * sizeof (uint32_t);
  if (n > 0)
    {
      memset (&u, 0, sizeof (u));
      msg.msg_control = u.c;
      msg.msg_controllen = CMSG_SPACE (n * sizeof (int));
      CMSG_FIRSTHDR (&msg)->cmsg_level = SOL_SOCKET;
      CMSG_FIRSTHDR (&msg)->cmsg_type = SCM_RIGHTS;
      CMSG_FIRSTHDR (&msg)->cmsg_len = CMSG_LEN (n * sizeof (int));
      memcpy (CMSG_DATA (CMSG_FIRSTHDR (&msg)), fds, n * sizeof (int));
    }
  do
    r = sendmsg (sync_fd, &msg, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  for (i = 0; i < n; i++)
    close (fds[i]);
  if (r < 0)
    return shim_error_errno (err, "tell the container's init its id maps are written");
  return 0;
}

int
userns_write_maps (pid_t pid, int sync_fd, const struct shim_config *cfg, shim_error_t *err)
{
  char path[64];

  if (!userns_is_new (cfg))
    return 0;
  if (write_map (pid, "uid_map", cfg->uid_mappings, cfg->n_uid_mappings, "linux.uidMappings", err) < 0)
    return -1;
  /* The kernel refuses gid_map to a writer without CAP_SETGID over the
   * parent namespace unless setgroups is "deny" (since 3.19).  As root the
   * map is accepted with setgroups allowed, and the container keeps
   * setgroups(2) for process.user.additionalGids: runc (rootless only) and
   * LXC (geteuid() != 0) deny it only then, and so does shim. */
  if (geteuid () != 0)
    {
      snprintf (path, sizeof (path), "/proc/%d/setgroups", (int) pid);
      if (util_write_file_at (AT_FDCWD, path, "deny", 4, err) < 0)
        return shim_error_prefix (err, "linux.gidMappings");
    }
  if (write_map (pid, "gid_map", cfg->gid_mappings, cfg->n_gid_mappings, "linux.gidMappings", err) < 0)
    return -1;
  return send_maps_written (sync_fd, cfg, err);
}

int
userns_become_root (shim_error_t *err)
{
  /* Until now the process runs with the runtime's host ids, which mean
   * nothing in the namespace: files it created on a filesystem mounted in
   * there would fail with EOVERFLOW.  The capabilities it got with the
   * namespace survive this change (they are dropped only when leaving
   * uid 0 of the namespace, which it was not). */
  if (setresgid (0, 0, 0) < 0)
    return shim_error_errno (err, "become root (gid 0) in the user namespace");
  if (setresuid (0, 0, 0) < 0)
    return shim_error_errno (err, "become root (uid 0) in the user namespace");
  /* A change of ids clears the parent-death signal. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return shim_error_errno (err, "prctl(PR_SET_PDEATHSIG)");
  return 0;
}

int
userns_wait_maps (int sync_fd, const struct shim_config *cfg, int *mount_fds, shim_error_t *err)
{
  uint32_t idx[MAX_MOUNT_FDS];
  char buf[1 + sizeof (idx)];
  union
  {
    struct cmsghdr h;
    char c[CMSG_SPACE (MAX_MOUNT_FDS * sizeof (int))];
  } u;
  struct iovec iov = { .iov_base = buf, .iov_len = sizeof (buf) };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.c, .msg_controllen = sizeof (u.c) };
  struct cmsghdr *c;
  size_t n = 0, i;
  ssize_t r;

  if (!userns_is_new (cfg))
    return 0;
  do
    r = recvmsg (sync_fd, &msg, MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return shim_error_errno (err, "wait for the user namespace's id maps");
  c = CMSG_FIRSTHDR (&msg);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
    n = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
  memcpy (idx, buf + 1, r > 1 ? (size_t) r - 1 : 0);
  for (i = 0; i < n; i++)
    {
      int fd;
      memcpy (&fd, CMSG_DATA (c) + i * sizeof (int), sizeof (int));
      if ((size_t) r >= 1 + (i + 1) * sizeof (uint32_t) && idx[i] < cfg->n_mounts && mount_fds[idx[i]] < 0)
        mount_fds[idx[i]] = fd;
      else
        close (fd);
    }
  if (r == 0 || buf[0] != MAPS_WRITTEN)
    return shim_error_plain (err, EPROTO, "the runtime did not write the user namespace's id maps");
  return userns_become_root (err);
}
