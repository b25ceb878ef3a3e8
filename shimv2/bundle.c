/* SPDX-License-Identifier: Apache-2.0 */
/* The bundle's cgroup manager (bundle.h). */
#include "shimv2/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup.h"
#include "common/json.h"
#include "common/util.h"

bool
bundle_cgroups_path_is_systemd (const char *path)
{
  cleanup_free char *mapped = NULL;

  /* The systemd manager's own parse decides (an empty path is its default,
   * not a form). */
  return path != NULL && path[0] != '\0' && path[0] != '/'
         && cgroup_path_for (path, true, "x", &mapped, NULL) == 0;
}

int
bundle_systemd_cgroup (const char *dir, bool *systemd, shim_error_t *err)
{
  const char *where[] = { "linux", "cgroupsPath", NULL };
  cleanup_free char *buf = NULL, *file = NULL;
  cleanup_yajl_val yajl_val tree = NULL;
  yajl_val v;
  char msg[256] = "";

  *systemd = false;
  if (asprintf (&file, "%s/config.json", dir) < 0)
    {
      file = NULL;
      return shim_error_errno (err, "bundle: asprintf");
    }
  if (util_read_file_at (AT_FDCWD, file, &buf, NULL, err) < 0)
    return shim_error_prefix (err, "%s", file);
  tree = yajl_tree_parse (buf, msg, sizeof msg);
  if (tree == NULL)
    {
      /* yajl's message goes on to show the text on more lines. */
      msg[strcspn (msg, "\n")] = '\0';
      return shim_error (err, EINVAL, "%s: not JSON: %s", file, msg);
    }
  v = yajl_tree_get (tree, where, yajl_t_string);
  *systemd = v != NULL && bundle_cgroups_path_is_systemd (YAJL_GET_STRING (v));
  return 0;
}
