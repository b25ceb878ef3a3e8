/* SPDX-License-Identifier: Apache-2.0 */
/* The engine's name for a container (history.h): from config.json's
 * annotations (containerd's CRI, CRI-O, nerdctl), or, for podman 4.3,
 * which passes its name in no annotation and no field of config.json,
 * from the hosts file it writes for the container, whose line for the
 * hostname ends with the name ("127.0.0.1  877386e833a8 my-named-ct").
 * The runtime and the hook (at arming) read it the same way. */
#include "history/history.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "common/json.h"

void
history_names_from_annotations (const struct util_kv *kv, size_t n, struct history_names *out)
{
  /* containerd's CRI, CRI-O (and kubelet's labels), nerdctl; the first
   * found wins. */
  static const char *const names[] = { "io.kubernetes.cri.container-name", "io.kubernetes.container.name",
                                       "nerdctl/name" };
  static const char *const pods[] = { "io.kubernetes.cri.sandbox-name", "io.kubernetes.pod.name" };
  static const char *const namespaces[] = { "io.kubernetes.cri.sandbox-namespace", "io.kubernetes.pod.namespace" };
  const struct
  {
    const char *const *keys;
    size_t n;
    const char **out;
  } want[] = { { names, 3, &out->name }, { pods, 2, &out->pod }, { namespaces, 2, &out->pod_namespace } };

  memset (out, 0, sizeof (*out));
  for (size_t w = 0; w < 3; w++)
    for (size_t k = 0; k < want[w].n && *want[w].out == NULL; k++)
      for (size_t i = 0; i < n; i++)
        if (strcmp (kv[i].key, want[w].keys[k]) == 0 && kv[i].value[0])
          {
            *want[w].out = kv[i].value;
            break;
          }
}

/* A hosts line's fields are separated by blanks; a `#` starts a comment. */
static size_t
field_len (const char *p)
{
  size_t n = 0;
  while (p[n] && p[n] != '\n' && p[n] != '#' && !isblank ((unsigned char) p[n]))
    n++;
  return n;
}

static const char *
skip_blanks (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

int
history_name_from_hosts (const char *text, const char *hostname, char **name)
{
  size_t hlen = strlen (hostname);

  *name = NULL;
  if (hlen == 0)
    return 0;
  for (const char *line = text; line && *line; line = strchr (line, '\n'), line = line ? line + 1 : NULL)
    {
      /* The address, then the names. */
      const char *p = skip_blanks (line);
      bool after_host = false;

      p = skip_blanks (p + field_len (p));
      for (size_t n; (n = field_len (p)) > 0; p = skip_blanks (p + n))
        {
          cleanup_free char *alias = NULL;

          if (!after_host)
            {
              after_host = n == hlen && strncmp (p, hostname, n) == 0;
              continue;
            }
          if (n == hlen && strncmp (p, hostname, n) == 0)
            continue;
          alias = strndup (p, n);
          if (alias == NULL)
            return -1;
          if (util_id_invalid (alias) != NULL || alias[0] == '.')
            return 0;
          *name = steal_pointer (&alias);
          return 0;
        }
    }
  return 0;
}

/* podman's: the container's hostname and the host path of its /etc/hosts,
 * from config.json (written by the engine before the container exists). */
void
history_name_podman (const char *bundle, char **name)
{
  const char *hostname_path[] = { "hostname", NULL }, *mounts_path[] = { "mounts", NULL };
  const char *dest_path[] = { "destination", NULL }, *src_path[] = { "source", NULL };
  cleanup_yajl_val yajl_val root = NULL;
  cleanup_free char *json = NULL, *hosts = NULL;
  cleanup_error shim_error_t tmp = NULL;
  cleanup_close int bfd = open (bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  yajl_val hostname, mounts;

  if (bfd < 0 || util_read_file_at (bfd, "config.json", &json, NULL, &tmp) < 0
      || (root = yajl_tree_parse (json, NULL, 0)) == NULL)
    return;
  hostname = yajl_tree_get (root, hostname_path, yajl_t_string);
  mounts = yajl_tree_get (root, mounts_path, yajl_t_array);
  for (size_t i = 0; hostname && mounts && i < mounts->u.array.len; i++)
    {
      yajl_val d = yajl_tree_get (mounts->u.array.values[i], dest_path, yajl_t_string);
      yajl_val s = yajl_tree_get (mounts->u.array.values[i], src_path, yajl_t_string);

      if (d == NULL || s == NULL || strcmp (d->u.string, "/etc/hosts") != 0)
        continue;
      /* podman's own file in its run directory, read before the workload
       * runs (it is bind-mounted writable into the container). */
      if (util_read_file_at (AT_FDCWD, s->u.string, &hosts, NULL, &tmp) == 0)
        history_name_from_hosts (hosts, hostname->u.string, name);
      return;
    }
}
