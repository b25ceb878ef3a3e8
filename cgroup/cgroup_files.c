/* SPDX-License-Identifier: Apache-2.0 */
/* Strict parsers for the cgroup v2 files the verdict reads, and the snapshot
 * that reads them from a cgroup directory (its JSON form is in
 * snapshot_json.c).  Strict because the
 * verdict's promise rests on these numbers: a file we misread would turn into a
 * confident wrong answer, so anything unexpected is an error naming the file
 * and line, except what kernels are documented to vary in (missing keys on
 * older kernels, new keys on newer ones). */
#include "cgroup/cgroup_files.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup/cgroup.h"
#include "cgroup/cgroup_internal.h"
#include "common/json.h"
#include "common/util.h"

/* ---- numbers and lines ------------------------------------------------- */

enum num_status
{
  NUM_OK,
  NUM_EMPTY,
  NUM_NEGATIVE,
  NUM_NOT_A_NUMBER,
  NUM_RANGE
};

/* Digits only, nothing else: the kernel prints counters with "%llu".  Values
 * above INT64_MAX are refused because they could not round-trip through JSON
 * integers, and no cgroup counter or byte count gets there. */
static enum num_status
parse_number (const char *s, size_t len, uint64_t *out)
{
  uint64_t v = 0;

  if (len == 0)
    return NUM_EMPTY;
  if (s[0] == '-')
    {
      for (size_t i = 1; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
          return NUM_NOT_A_NUMBER;
      return len > 1 ? NUM_NEGATIVE : NUM_NOT_A_NUMBER;
    }
  for (size_t i = 0; i < len; i++)
    if (s[i] < '0' || s[i] > '9')
      return NUM_NOT_A_NUMBER;
  for (size_t i = 0; i < len; i++)
    {
      uint64_t d = (uint64_t) (s[i] - '0');
      if (v > ((uint64_t) INT64_MAX - d) / 10)
        return NUM_RANGE;
      v = v * 10 + d;
    }
  *out = v;
  return NUM_OK;
}

/* "<prefix>: value `x` is ..." for a failed parse_number.  prefix already
 * names the file (and line and key). */
static int
number_error (shim_error_t *err, enum num_status st, const char *prefix, const char *v, size_t len)
{
  static const char *const what[] = {
    [NUM_EMPTY] = "is empty",
    [NUM_NEGATIVE] = "is negative",
    [NUM_NOT_A_NUMBER] = "is not a number",
    [NUM_RANGE] = "is out of range",
  };
  int shown = len > 40 ? 40 : (int) len;
  return shim_error (err, 0, "%s: value `%.*s`%s %s", prefix, shown, v, len > 40 ? "..." : "",
                     what[st]);
}

/* Flat-keyed files ("key value\n" per line, cgroup-v2.rst "Format").  A
 * file's known keys are an array; the parse fills values[i] and sets bit i of
 * *seen for each one found.  Every
 * line must have a key and a value; known keys must have a number and appear
 * once; unknown keys are skipped so a newer kernel does not break us. */
static int
parse_flat_keyed (const char *name, const char *buf, const char *const *keys, size_t nkeys,
                  uint64_t *values, uint32_t *seen, shim_error_t *err)
{
  const char *p = buf;
  unsigned lineno = 0;

  *seen = 0;
  while (*p != '\0')
    {
      const char *nl = strchr (p, '\n');
      size_t len = nl ? (size_t) (nl - p) : strlen (p);
      const char *sp = memchr (p, ' ', len);
      size_t klen = sp ? (size_t) (sp - p) : len;
      const char *val = sp ? sp + 1 : p + len;
      size_t vlen = (size_t) (p + len - val);
      char prefix[160];
      size_t i;

      lineno++;
      if (len == 0)
        return shim_error (err, 0, "`%s` line %u: empty line", name, lineno);
      if (klen == 0)
        return shim_error (err, 0, "`%s` line %u: no key", name, lineno);
      snprintf (prefix, sizeof prefix, "`%s` line %u: `%.*s`", name, lineno,
                (int) (klen > 40 ? 40 : klen), p);
      if (vlen == 0)
        return shim_error (err, 0, "`%s` line %u: no value for `%.*s`", name, lineno,
                           (int) (klen > 40 ? 40 : klen), p);
      for (i = 0; i < nkeys; i++)
        if (strlen (keys[i]) == klen && memcmp (keys[i], p, klen) == 0)
          break;
      if (i < nkeys)
        {
          enum num_status st;
          if (*seen & (1u << i))
            return shim_error (err, 0, "`%s` line %u: duplicate key `%s`", name, lineno,
                               keys[i]);
          st = parse_number (val, vlen, &values[i]);
          if (st != NUM_OK)
            return number_error (err, st, prefix, val, vlen);
          *seen |= 1u << i;
        }
      p += len;
      if (*p == '\n')
        p++;
    }
  return 0;
}

/* ---- memory.events, memory.stat, cgroup.events ------------------------- */

int
cg_parse_memory_events (const char *name, const char *buf, struct cg_memory_events *out,
                        shim_error_t *err)
{
  /* Same order as the CG_EV_* bits. */
  static const char *const keys[] = {
    "low", "high", "max", "oom", "oom_kill", "oom_group_kill",
  };
  uint64_t v[6] = { 0 };
  uint32_t seen;

  memset (out, 0, sizeof *out);
  if (parse_flat_keyed (name, buf, keys, 6, v, &seen, err) < 0)
    return -1;
  out->have = seen;
  out->low = v[0];
  out->high = v[1];
  out->max = v[2];
  out->oom = v[3];
  out->oom_kill = v[4];
  out->oom_group_kill = v[5];
  return 0;
}

int
cg_parse_memory_stat (const char *name, const char *buf, struct cg_memory_stat *out,
                      shim_error_t *err)
{
  /* The first seven map onto CG_STAT_* bits 0..6; the rest exist only to
   * estimate `kernel` on kernels before 5.18, which lack that line. */
  enum
  {
    ANON,
    FILE_,
    KERNEL,
    SHMEM,
    SOCK,
    FILE_MAPPED,
    ANON_THP,
    KERNEL_STACK,
    PAGETABLES,
    PERCPU,
    VMALLOC,
    SLAB,
    SLAB_RECLAIMABLE,
    SLAB_UNRECLAIMABLE,
    NKEYS
  };
  static const char *const keys[NKEYS] = {
    [ANON] = "anon",
    [FILE_] = "file",
    [KERNEL] = "kernel",
    [SHMEM] = "shmem",
    [SOCK] = "sock",
    [FILE_MAPPED] = "file_mapped",
    [ANON_THP] = "anon_thp",
    [KERNEL_STACK] = "kernel_stack",
    [PAGETABLES] = "pagetables",
    [PERCPU] = "percpu",
    [VMALLOC] = "vmalloc",
    [SLAB] = "slab",
    [SLAB_RECLAIMABLE] = "slab_reclaimable",
    [SLAB_UNRECLAIMABLE] = "slab_unreclaimable",
  };
  uint64_t v[NKEYS] = { 0 };
  uint32_t seen;

  memset (out, 0, sizeof *out);
  if (parse_flat_keyed (name, buf, keys, NKEYS, v, &seen, err) < 0)
    return -1;
  out->have = seen & ((1u << KERNEL_STACK) - 1);
  out->anon = v[ANON];
  out->file = v[FILE_];
  out->kernel = v[KERNEL];
  out->shmem = v[SHMEM];
  out->sock = v[SOCK];
  out->file_mapped = v[FILE_MAPPED];
  out->anon_thp = v[ANON_THP];

  /* Before 5.18 there is no `kernel` line.  The documentation defines it as
   * kernel_stack, pagetables, percpu, vmalloc and slab "in addition to other
   * kernel memory use cases", so the sum of the parts present is a lower
   * bound: flagged as estimated.  sock is charged separately, not as kmem.
   * Without kernel_stack and any slab line there is nothing to sum. */
  if (!(seen & (1u << KERNEL)))
    {
      bool have_slab = seen & (1u << SLAB);
      bool have_slab_parts = seen & ((1u << SLAB_RECLAIMABLE) | (1u << SLAB_UNRECLAIMABLE));
      uint64_t slab = have_slab ? v[SLAB] : v[SLAB_RECLAIMABLE] + v[SLAB_UNRECLAIMABLE];

      if ((seen & (1u << KERNEL_STACK)) && (have_slab || have_slab_parts))
        {
          out->kernel = v[KERNEL_STACK] + v[PAGETABLES] + v[PERCPU] + v[VMALLOC] + slab;
          out->have |= CG_STAT_KERNEL | CG_STAT_KERNEL_ESTIMATED;
        }
    }
  return 0;
}

int
cg_parse_cgroup_events (const char *name, const char *buf, struct cg_cgroup_events *out,
                        shim_error_t *err)
{
  static const char *const keys[] = { "populated", "frozen" };
  uint64_t v[2] = { 0 };
  uint32_t seen;

  memset (out, 0, sizeof *out);
  if (parse_flat_keyed (name, buf, keys, 2, v, &seen, err) < 0)
    return -1;
  /* Booleans: anything else means we are not reading what we think. */
  for (int i = 0; i < 2; i++)
    if ((seen & (1u << i)) && v[i] > 1)
      return shim_error (err, 0, "`%s`: `%s` is %llu, not 0 or 1", name, keys[i],
                         (unsigned long long) v[i]);
  out->have = seen;
  out->populated = v[0] == 1;
  out->frozen = v[1] == 1;
  return 0;
}

/* ---- single-value files ------------------------------------------------ */

/* The value of a one-line file: exactly one line, the newline optional. */
static int
single_line (const char *name, const char *buf, size_t *len, shim_error_t *err)
{
  const char *nl = strchr (buf, '\n');

  *len = nl ? (size_t) (nl - buf) : strlen (buf);
  if (nl && nl[1] != '\0')
    return shim_error (err, 0, "`%s`: more than one line", name);
  return 0;
}

int
cg_parse_u64_file (const char *name, const char *buf, uint64_t *out, shim_error_t *err)
{
  char prefix[80];
  enum num_status st;
  size_t len;

  if (single_line (name, buf, &len, err) < 0)
    return -1;
  st = parse_number (buf, len, out);
  if (st == NUM_EMPTY)
    return shim_error (err, 0, "`%s`: empty", name);
  if (st != NUM_OK)
    {
      snprintf (prefix, sizeof prefix, "`%s`", name);
      return number_error (err, st, prefix, buf, len);
    }
  return 0;
}

int
cg_parse_limit_file (const char *name, const char *buf, uint64_t *out, shim_error_t *err)
{
  size_t len;

  if (single_line (name, buf, &len, err) < 0)
    return -1;
  if (len == 3 && memcmp (buf, "max", 3) == 0)
    {
      *out = CG_UNLIMITED;
      return 0;
    }
  return cg_parse_u64_file (name, buf, out, err);
}

/* ---- snapshot ---------------------------------------------------------- */

/* memory.oom.group: "0" or "1", nothing else. */
static int
parse_bool_file (const char *name, const char *buf, bool *out, shim_error_t *err)
{
  uint64_t v;

  if (cg_parse_u64_file (name, buf, &v, err) < 0)
    return -1;
  if (v > 1)
    return shim_error (err, 0, "`%s`: value `%llu` is neither 0 nor 1", name, (unsigned long long) v);
  *out = v == 1;
  return 0;
}

/* Read name into *buf.  Returns 1 when read, 0 when the file does not exist
 * (the part is absent), -1 on any other error. */
static int
read_optional (int dirfd, const char *name, char **buf, shim_error_t *err)
{
  shim_error_t local = NULL;

  if (util_read_file_at (dirfd, name, buf, NULL, &local) == 0)
    return 1;
  if (local->status == ENOENT)
    {
      shim_error_release (&local);
      return 0;
    }
  /* Hand the precise error (it names the file and the errno) to the caller. */
  return shim_error_take (err, &local);
}

int
cg_snapshot_read (int dirfd, struct cg_snapshot *out, shim_error_t *err)
{
  struct
  {
    const char *name;
    unsigned bit;
  } files[] = {
    /* cgroup.events first: counters read after it says empty are final.
     * Read last, a cgroup that emptied during the reads would make
     * counters read before an OOM kill look final. */
    { "cgroup.events", CG_SNAP_CGROUP_EVENTS },
    { "memory.events.local", CG_SNAP_EVENTS_LOCAL },
    { "memory.events", CG_SNAP_EVENTS },
    { "memory.peak", CG_SNAP_PEAK },
    { "memory.max", CG_SNAP_MAX },
    { "memory.swap.max", CG_SNAP_SWAP_MAX },
    { "memory.stat", CG_SNAP_STAT },
    { "memory.oom.group", CG_SNAP_OOM_GROUP },
  };
  struct stat sb;

  memset (out, 0, sizeof *out);
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    {
      cleanup_free char *buf = NULL;
      const char *name = files[i].name;
      int r = read_optional (dirfd, name, &buf, err);
      if (r < 0)
        return -1;
      if (r == 0)
        continue;
      switch (files[i].bit)
        {
        case CG_SNAP_EVENTS_LOCAL:
          r = cg_parse_memory_events (name, buf, &out->events_local, err);
          break;
        case CG_SNAP_EVENTS:
          r = cg_parse_memory_events (name, buf, &out->events, err);
          break;
        case CG_SNAP_PEAK:
          r = cg_parse_u64_file (name, buf, &out->memory_peak, err);
          break;
        case CG_SNAP_MAX:
          r = cg_parse_limit_file (name, buf, &out->memory_max, err);
          break;
        case CG_SNAP_SWAP_MAX:
          r = cg_parse_limit_file (name, buf, &out->memory_swap_max, err);
          break;
        case CG_SNAP_STAT:
          r = cg_parse_memory_stat (name, buf, &out->stat, err);
          break;
        case CG_SNAP_OOM_GROUP:
          r = parse_bool_file (name, buf, &out->oom_group, err);
          break;
        default:
          r = cg_parse_cgroup_events (name, buf, &out->cgroup_events, err);
          break;
        }
      if (r < 0)
        return -1;
      out->have |= files[i].bit;
    }
  /* The directory's inode number is the cgroup's id (the kernel's
   * cgroup_id(), what name_to_handle_at gives): a cgroup removed and made
   * again under the same path has another one. */
  if (fstat (dirfd, &sb) == 0)
    {
      out->cgroup_id = (uint64_t) sb.st_ino;
      out->have |= CG_SNAP_ID;
    }
  if (cgroup_mount_localevents (&out->localevents) == 0)
    out->have |= CG_SNAP_LOCALEVENTS;
  return cg_snapshot_read_pids (dirfd, out, err);
}

int
cg_snapshot_read_pids (int dirfd, struct cg_snapshot *out, shim_error_t *err)
{
  cleanup_free char *events = NULL, *max = NULL;
  struct cg_memory_events ev = { 0 };
  int r;

  /* pids.events has the key `max` (and `max.imposed` since 6.14, ignored
   * as an unknown key), the same form as memory.events. */
  r = read_optional (dirfd, "pids.events", &events, err);
  if (r < 0 || (r == 1 && cg_parse_memory_events ("pids.events", events, &ev, err) < 0))
    return -1;
  if (r == 1 && (ev.have & CG_EV_MAX))
    {
      out->pids_max_events = ev.max;
      out->have |= CG_SNAP_PIDS_EVENTS;
    }
  r = read_optional (dirfd, "pids.max", &max, err);
  if (r < 0 || (r == 1 && cg_parse_limit_file ("pids.max", max, &out->pids_max, err) < 0))
    return -1;
  if (r == 1)
    out->have |= CG_SNAP_PIDS_MAX;
  return 0;
}

bool
cg_events_fd_ended (int fd)
{
  char buf[256];
  ssize_t n;
  struct cg_cgroup_events ev;
  shim_error_t tmp = NULL;

  /* A signal during the read is not the end of the cgroup. */
  do
    n = pread (fd, buf, sizeof (buf) - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return true; /* ENODEV: removed */
  buf[n] = '\0';
  if (cg_parse_cgroup_events ("cgroup.events", buf, &ev, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return false;
    }
  return (ev.have & CG_CEV_POPULATED) && !ev.populated;
}

/* Here, not in hierarchy.c: this file uses that one, never both ways. */
int
cgroup_refuse_frozen (int dirfd, const char *path, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  struct cg_cgroup_events e;

  if (util_read_file_at (dirfd, "cgroup.events", &buf, NULL, err) < 0
      || cg_parse_cgroup_events ("cgroup.events", buf, &e, err) < 0)
    return shim_error_prefix (err, "cgroup `%s` in cgroup2", path);
  if ((e.have & CG_CEV_FROZEN) && e.frozen)
    return shim_error_plain (err, EBUSY, "container's cgroup unexpectedly frozen (cgroup `%s`)", path);
  return 0;
}
