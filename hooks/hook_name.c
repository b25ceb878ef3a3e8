/* SPDX-License-Identifier: Apache-2.0 */
#include "hooks/hook_name.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "common/json.h"
#include "common/util.h"

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
hook_name_from_hosts (const char *text, const char *hostname, char **name)
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
static void
podman_name (const char *bundle, char **name)
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
        hook_name_from_hosts (hosts, hostname->u.string, name);
      return;
    }
}

void
hook_name_find (const struct hook_state *st, char **name)
{
  *name = NULL;
  if (st->name)
    *name = strdup (st->name);
  else if (st->bundle && st->podman)
    podman_name (st->bundle, name);
}
