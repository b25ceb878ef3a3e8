/* SPDX-License-Identifier: Apache-2.0 */
/* What the shim reads from the bundle's config.json before libshim does:
 * the cgroup manager.  containerd tells a shim v2 nothing of its cgroup
 * driver (runc's shim takes SystemdCgroup from its own options, which
 * containerd's CRI gives only to the io.containerd.runc.* types); the
 * driver shows in linux.cgroupsPath, which the CRI plugin writes as
 * `SLICE:cri-containerd:ID` under SystemdCgroup (the pod's cgroup parent
 * a systemd slice) and as an absolute path otherwise, as ctr does. */
#ifndef SHIMV2_BUNDLE_H
#define SHIMV2_BUNDLE_H

#include <stdbool.h>

#include "common/error.h"

/* PATH is systemd's `slice:prefix:name`: not absolute, exactly two
 * colons, the slice empty or a `.slice` unit, a name. */
bool bundle_cgroups_path_is_systemd (const char *path);

/* *SYSTEMD: DIR/config.json's linux.cgroupsPath is systemd's form (false
 * when it has none).  Fails naming the file when it cannot be read or is
 * not JSON. */
int bundle_systemd_cgroup (const char *dir, bool *systemd, shim_error_t *err);

#endif
