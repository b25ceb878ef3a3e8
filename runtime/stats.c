/* SPDX-License-Identifier: Apache-2.0 */
/* stats: a running container's cgroup figures as data (see runtime.h), for
 * a caller that encodes them itself (containerd's Stats in the shim v2):
 * those `events --stats` reads, and memory.stat whole. */
#include "runtime/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgroup/cgroup.h"
#include "common/util.h"
#include "runtime/container_ref_internal.h"

/* memory.stat's "KEY VALUE" lines into ST; keys past the table's size or
 * its key length are left out (none of the kernel's are). */
static void
parse_memory_stat (char *text, struct runtime_stats *st)
{
  char *line, *save = NULL;

  for (line = strtok_r (text, "\n", &save); line && st->n_memory_stat < RUNTIME_MEMORY_STAT_MAX;
       line = strtok_r (NULL, "\n", &save))
    {
      char *sp = strchr (line, ' ');
      uint64_t v;
      if (sp == NULL || (size_t) (sp - line) >= sizeof st->memory_stat[0].key)
        continue;
      *sp = '\0';
      if (util_parse_u64 (sp + 1, &v) < 0)
        continue;
      memcpy (st->memory_stat[st->n_memory_stat].key, line, (size_t) (sp - line) + 1);
      st->memory_stat[st->n_memory_stat++].value = v;
    }
}

int
runtime_stats (const struct runtime_ctx *ctx, const char *id, struct runtime_stats *out, shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  cleanup_free char *text = NULL;
  int memfd;

  memset (out, 0, sizeof *out);
  if (container_ref_open (ctx->root, id, false, &r, err) < 0)
    return -1;
  if (r.cg.dirfd < 0)
    return shim_error_plain (err, ENOENT, "stats: container `%s` has no cgroup", id);
  out->v1 = r.cg.v1 != NULL;
  cgroup_stats_read (&r.cg, &out->cg);
  memfd = cgroup_memory_dirfd (&r.cg);
  /* Without the memory controller there is no memory.stat: its figures
   * are then 0, as the others read without their file. */
  if (memfd >= 0)
    {
      shim_error_t tmp = NULL;
      if (util_read_file_at (memfd, "memory.stat", &text, NULL, &tmp) < 0)
        {
          if (tmp->status != ENOENT)
            return shim_error_take (err, &tmp);
          shim_error_release (&tmp);
        }
      else
        parse_memory_stat (text, out);
    }
  return 0;
}

uint64_t
runtime_stats_memory (const struct runtime_stats *st, const char *key)
{
  size_t i;
  for (i = 0; i < st->n_memory_stat; i++)
    if (strcmp (st->memory_stat[i].key, key) == 0)
      return st->memory_stat[i].value;
  return 0;
}
