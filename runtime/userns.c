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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/util.h"

/* The one message of the protocol: "your maps are written". */
#define MAPS_WRITTEN 'M'

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

int
userns_write_maps (pid_t pid, int sync_fd, const struct shim_config *cfg, shim_error_t *err)
{
  char msg = MAPS_WRITTEN, path[64];
  ssize_t r;

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
  do
    r = send (sync_fd, &msg, 1, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return shim_error_errno (err, "tell the container's init its id maps are written");
  return 0;
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
userns_wait_maps (int sync_fd, const struct shim_config *cfg, shim_error_t *err)
{
  char msg = 0;
  ssize_t r;

  if (!userns_is_new (cfg))
    return 0;
  do
    r = recv (sync_fd, &msg, 1, 0);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return shim_error_errno (err, "wait for the user namespace's id maps");
  if (r == 0 || msg != MAPS_WRITTEN)
    return shim_error_plain (err, EPROTO, "the runtime did not write the user namespace's id maps");
  return userns_become_root (err);
}
