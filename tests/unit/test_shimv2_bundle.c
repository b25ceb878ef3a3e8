/* SPDX-License-Identifier: Apache-2.0 */
/* The shim v2's cgroup manager from the bundle (shimv2/bundle.h): the
 * forms containerd writes in linux.cgroupsPath (CRI's SystemdCgroup
 * `SLICE:cri-containerd:ID`, CRI's cgroupfs and ctr's absolute paths) and
 * the config.json it is read from. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shimv2/bundle.h"
#include "tap.h"

static void
write_config (const char *dir, const char *text)
{
  char path[512];
  FILE *f;
  snprintf (path, sizeof path, "%s/config.json", dir);
  f = fopen (path, "w");
  if (f == NULL || fputs (text, f) < 0 || fclose (f) != 0)
    {
      perror (path);
      exit (1);
    }
}

int
main (void)
{
  static const struct
  {
    const char *path;
    bool systemd;
  } cases[] = {
    { "kubepods-burstable-pod6c1a2a4e_9d1b.slice:cri-containerd:96e4368", true },
    { "system.slice:docker:abc", true },
    { ":cri-containerd:abc", true },
    { "kubepods.slice:cri-containerd:abc", true },
    { "/kubepods/burstable/pod6c1a2a4e-9d1b/96e4368", false },
    { "/k8s.io/96e4368", false },
    { "relative/path", false },
    { "", false },
    { NULL, false },
    { "kubepods.slice:cri-containerd:", false },
    { "kubepods.slice:cri-containerd", false },
    { "a.slice:b:c:d", false },
    { "notaslice:prefix:name", false },
    { ".slice:prefix:name", false },
    { "/a.slice:prefix:name", false },
  };
  char dir[] = "/tmp/test_shimv2_bundle.XXXXXX";
  shim_error_t err = NULL;
  bool systemd;
  size_t i;
  int r;

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ok (bundle_cgroups_path_is_systemd (cases[i].path) == cases[i].systemd, "cgroupsPath %s%s%s: %s",
        cases[i].path ? "`" : "", cases[i].path ? cases[i].path : "NULL", cases[i].path ? "`" : "",
        cases[i].systemd ? "systemd" : "cgroupfs");

  if (mkdtemp (dir) == NULL)
    {
      perror ("mkdtemp");
      return 1;
    }
  write_config (dir, "{\"linux\": {\"cgroupsPath\": \"kubepods-pod1.slice:cri-containerd:c1\"}}");
  ok (bundle_systemd_cgroup (dir, &systemd, &err) == 0 && systemd, "config.json with CRI's systemd form: systemd");
  write_config (dir, "{\"linux\": {\"cgroupsPath\": \"/kubepods/pod1/c1\"}}");
  ok (bundle_systemd_cgroup (dir, &systemd, &err) == 0 && !systemd, "config.json with an absolute path: cgroupfs");
  write_config (dir, "{\"linux\": {}}");
  ok (bundle_systemd_cgroup (dir, &systemd, &err) == 0 && !systemd, "config.json without cgroupsPath: cgroupfs");
  write_config (dir, "{\"linux\": {\"cgroupsPath\": 7}}");
  ok (bundle_systemd_cgroup (dir, &systemd, &err) == 0 && !systemd, "a cgroupsPath that is not a string: cgroupfs");
  write_config (dir, "{\"linux\": ");
  r = bundle_systemd_cgroup (dir, &systemd, &err);
  ok (r < 0 && err && err->status == EINVAL
          && strstr (err->msg, "config.json: not JSON") != NULL,
      "config.json cut short: EINVAL naming the file (%s)", err ? err->msg : "no error");
  shim_error_release (&err);
  {
    char path[512];
    snprintf (path, sizeof path, "%s/config.json", dir);
    unlink (path);
  }
  r = bundle_systemd_cgroup (dir, &systemd, &err);
  ok (r < 0 && err && err->status == ENOENT
          && strstr (err->msg, "config.json") != NULL && !systemd,
      "no config.json: ENOENT naming it (%s)", err ? err->msg : "no error");
  shim_error_release (&err);
  rmdir (dir);
  return done_testing ();
}
