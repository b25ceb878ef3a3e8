/* SPDX-License-Identifier: Apache-2.0 */
/* Strict parsers for the cgroup v2 files the verdict reads, the snapshot that
 * reads them from a cgroup directory, and its JSON form.  Strict because the
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
    { "memory.events.local", CG_SNAP_EVENTS_LOCAL },
    { "memory.events", CG_SNAP_EVENTS },
    { "memory.peak", CG_SNAP_PEAK },
    { "memory.max", CG_SNAP_MAX },
    { "memory.swap.max", CG_SNAP_SWAP_MAX },
    { "memory.stat", CG_SNAP_STAT },
    { "cgroup.events", CG_SNAP_CGROUP_EVENTS },
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
  return 0;
}

/* ---- JSON -------------------------------------------------------------- */

/* Field tables shared by the generator and the reader, so the two cannot
 * drift apart. */
struct u64_field
{
  const char *key;
  unsigned bit;
  size_t off;
};

static const struct u64_field events_fields[] = {
  { "low", CG_EV_LOW, offsetof (struct cg_memory_events, low) },
  { "high", CG_EV_HIGH, offsetof (struct cg_memory_events, high) },
  { "max", CG_EV_MAX, offsetof (struct cg_memory_events, max) },
  { "oom", CG_EV_OOM, offsetof (struct cg_memory_events, oom) },
  { "oom_kill", CG_EV_OOM_KILL, offsetof (struct cg_memory_events, oom_kill) },
  { "oom_group_kill", CG_EV_OOM_GROUP_KILL, offsetof (struct cg_memory_events, oom_group_kill) },
  { NULL, 0, 0 },
};

static const struct u64_field stat_fields[] = {
  { "anon", CG_STAT_ANON, offsetof (struct cg_memory_stat, anon) },
  { "file", CG_STAT_FILE, offsetof (struct cg_memory_stat, file) },
  { "kernel", CG_STAT_KERNEL, offsetof (struct cg_memory_stat, kernel) },
  { "shmem", CG_STAT_SHMEM, offsetof (struct cg_memory_stat, shmem) },
  { "sock", CG_STAT_SOCK, offsetof (struct cg_memory_stat, sock) },
  { "file_mapped", CG_STAT_FILE_MAPPED, offsetof (struct cg_memory_stat, file_mapped) },
  { "anon_thp", CG_STAT_ANON_THP, offsetof (struct cg_memory_stat, anon_thp) },
  { NULL, 0, 0 },
};

#define FIELD(base, off) ((uint64_t *) ((char *) (base) + (off)))

/* Values are <= INT64_MAX by construction (parse_number), so the cast keeps
 * them. */
static yajl_gen_status
gen_u64 (yajl_gen g, uint64_t v)
{
  return yajl_gen_integer (g, (long long) v);
}

static yajl_gen_status
gen_fields (yajl_gen g, const struct u64_field *f, unsigned have, const void *base)
{
  yajl_gen_status s = yajl_gen_map_open (g);
  for (; s == yajl_gen_status_ok && f->key; f++)
    if (have & f->bit)
      {
        s = json_gen_str (g, f->key);
        if (s == yajl_gen_status_ok)
          s = gen_u64 (g, *FIELD (base, f->off));
      }
  return s == yajl_gen_status_ok ? yajl_gen_map_close (g) : s;
}

static yajl_gen_status
gen_limit (yajl_gen g, uint64_t v)
{
  if (v == CG_UNLIMITED)
    return yajl_gen_string (g, (const unsigned char *) "max", 3);
  return gen_u64 (g, v);
}

int
cg_snapshot_gen (yajl_gen g, const struct cg_snapshot *s, shim_error_t *err)
{
  yajl_gen_status st = yajl_gen_map_open (g);

#define PART(bit, gen) JSON_TRY (st, (s->have & (bit)) ? (gen) : yajl_gen_null (g))

  JSON_TRY (st, json_gen_str (g, "memory.events.local"));
  PART (CG_SNAP_EVENTS_LOCAL, gen_fields (g, events_fields, s->events_local.have, &s->events_local));
  JSON_TRY (st, json_gen_str (g, "memory.events"));
  PART (CG_SNAP_EVENTS, gen_fields (g, events_fields, s->events.have, &s->events));
  JSON_TRY (st, json_gen_str (g, "memory.peak"));
  PART (CG_SNAP_PEAK, gen_u64 (g, s->memory_peak));
  JSON_TRY (st, json_gen_str (g, "memory.max"));
  PART (CG_SNAP_MAX, gen_limit (g, s->memory_max));
  JSON_TRY (st, json_gen_str (g, "memory.swap.max"));
  PART (CG_SNAP_SWAP_MAX, gen_limit (g, s->memory_swap_max));
  JSON_TRY (st, json_gen_str (g, "memory.stat"));
  if (s->have & CG_SNAP_STAT)
    {
      /* Like gen_fields, plus the estimated flag, which is not a number. */
      JSON_TRY (st, yajl_gen_map_open (g));
      for (const struct u64_field *f = stat_fields; f->key; f++)
        if (s->stat.have & f->bit)
          {
            JSON_TRY (st, json_gen_str (g, f->key));
            JSON_TRY (st, gen_u64 (g, *FIELD (&s->stat, f->off)));
          }
      if (s->stat.have & CG_STAT_KERNEL_ESTIMATED)
        {
          JSON_TRY (st, json_gen_str (g, "kernel_estimated"));
          JSON_TRY (st, yajl_gen_bool (g, 1));
        }
      JSON_TRY (st, yajl_gen_map_close (g));
    }
  else
    JSON_TRY (st, yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "cgroup.events"));
  if (s->have & CG_SNAP_CGROUP_EVENTS)
    {
      JSON_TRY (st, yajl_gen_map_open (g));
      if (s->cgroup_events.have & CG_CEV_POPULATED)
        {
          JSON_TRY (st, json_gen_str (g, "populated"));
          JSON_TRY (st, yajl_gen_bool (g, s->cgroup_events.populated));
        }
      if (s->cgroup_events.have & CG_CEV_FROZEN)
        {
          JSON_TRY (st, json_gen_str (g, "frozen"));
          JSON_TRY (st, yajl_gen_bool (g, s->cgroup_events.frozen));
        }
      JSON_TRY (st, yajl_gen_map_close (g));
    }
  else
    JSON_TRY (st, yajl_gen_null (g));
  JSON_TRY (st, json_gen_str (g, "memory.oom.group"));
  PART (CG_SNAP_OOM_GROUP, yajl_gen_integer (g, s->oom_group ? 1 : 0));
  JSON_TRY (st, json_gen_str (g, "cgroup.id"));
  PART (CG_SNAP_ID, gen_u64 (g, s->cgroup_id));
  JSON_TRY (st, json_gen_str (g, "memory_localevents"));
  PART (CG_SNAP_LOCALEVENTS, yajl_gen_bool (g, s->localevents));
  /* Only in v1 snapshots: a v2 snapshot's JSON stays as it was. */
  if (s->have & CG_SNAP_V1)
    {
      JSON_TRY (st, json_gen_str (g, "cgroup_v1"));
      JSON_TRY (st, yajl_gen_bool (g, 1));
      JSON_TRY (st, json_gen_str (g, "cgroup_v1.nested"));
      JSON_TRY (st, yajl_gen_bool (g, s->v1_nested));
    }
  JSON_TRY (st, yajl_gen_map_close (g));
#undef PART

  if (st != yajl_gen_status_ok)
    return shim_error (err, 0, "generate cgroup snapshot JSON: yajl status %d", (int) st);
  return 0;
}

int
cg_snapshot_to_json (const struct cg_snapshot *snap, char **out, shim_error_t *err)
{
  yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;
  int ret = -1;

  if (g == NULL)
    return shim_error (err, ENOMEM, "generate cgroup snapshot JSON");
  if (cg_snapshot_gen (g, snap, err) == 0 && yajl_gen_get_buf (g, &buf, &len) == yajl_gen_status_ok)
    {
      *out = strndup ((const char *) buf, len);
      ret = *out ? 0 : shim_error (err, ENOMEM, "generate cgroup snapshot JSON");
    }
  else
    shim_error (err, 0, "generate cgroup snapshot JSON");
  yajl_gen_free (g);
  return ret;
}

static int
tree_u64 (yajl_val v, const char *what, const char *path, uint64_t *out, shim_error_t *err)
{
  if (!YAJL_IS_INTEGER (v) || YAJL_GET_INTEGER (v) < 0)
    return shim_error (err, 0, "`%s`: `%s` is not a non-negative integer", what, path);
  *out = (uint64_t) YAJL_GET_INTEGER (v);
  return 0;
}

/* Look up key in an object; NULL when missing. */
static yajl_val
tree_key (yajl_val obj, const char *key)
{
  const char *path[] = { key, NULL };
  return yajl_tree_get (obj, path, yajl_t_any);
}

/* An object of known u64 fields; unknown fields are skipped (a newer writer). */
static int
tree_fields (yajl_val obj, const char *what, const char *part, const struct u64_field *f,
             unsigned *have, void *base, shim_error_t *err)
{
  if (!YAJL_IS_OBJECT (obj))
    return shim_error (err, 0, "`%s`: `%s` is not an object", what, part);
  for (; f->key; f++)
    {
      yajl_val v = tree_key (obj, f->key);
      char path[96];
      if (v == NULL || YAJL_IS_NULL (v))
        continue;
      snprintf (path, sizeof path, "%s.%s", part, f->key);
      if (tree_u64 (v, what, path, FIELD (base, f->off), err) < 0)
        return -1;
      *have |= f->bit;
    }
  return 0;
}

static int
tree_limit (yajl_val v, const char *what, const char *path, uint64_t *out, shim_error_t *err)
{
  if (YAJL_IS_STRING (v) && strcmp (v->u.string, "max") == 0)
    {
      *out = CG_UNLIMITED;
      return 0;
    }
  return tree_u64 (v, what, path, out, err);
}

static int
tree_bool (yajl_val obj, const char *what, const char *key, unsigned bit, unsigned *have,
           bool *out, shim_error_t *err)
{
  yajl_val v = tree_key (obj, key);
  if (v == NULL || YAJL_IS_NULL (v))
    return 0;
  if (!YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
    return shim_error (err, 0, "`%s`: `cgroup.events.%s` is not a boolean", what, key);
  *out = YAJL_IS_TRUE (v);
  *have |= bit;
  return 0;
}

int
cg_snapshot_from_tree (yajl_val node, const char *what, struct cg_snapshot *s, shim_error_t *err)
{
  yajl_val v;

  memset (s, 0, sizeof *s);
  if (node == NULL || YAJL_IS_NULL (node))
    return 0;
  if (!YAJL_IS_OBJECT (node))
    return shim_error (err, 0, "`%s`: cgroup snapshot is not an object", what);

#define PRESENT(key) ((v = tree_key (node, key)) != NULL && !YAJL_IS_NULL (v))
  if (PRESENT ("memory.events.local"))
    {
      if (tree_fields (v, what, "memory.events.local", events_fields, &s->events_local.have,
                       &s->events_local, err) < 0)
        return -1;
      s->have |= CG_SNAP_EVENTS_LOCAL;
    }
  if (PRESENT ("memory.events"))
    {
      if (tree_fields (v, what, "memory.events", events_fields, &s->events.have, &s->events, err)
          < 0)
        return -1;
      s->have |= CG_SNAP_EVENTS;
    }
  if (PRESENT ("memory.peak"))
    {
      if (tree_u64 (v, what, "memory.peak", &s->memory_peak, err) < 0)
        return -1;
      s->have |= CG_SNAP_PEAK;
    }
  if (PRESENT ("memory.max"))
    {
      if (tree_limit (v, what, "memory.max", &s->memory_max, err) < 0)
        return -1;
      s->have |= CG_SNAP_MAX;
    }
  if (PRESENT ("memory.swap.max"))
    {
      if (tree_limit (v, what, "memory.swap.max", &s->memory_swap_max, err) < 0)
        return -1;
      s->have |= CG_SNAP_SWAP_MAX;
    }
  if (PRESENT ("memory.stat"))
    {
      yajl_val est;
      if (tree_fields (v, what, "memory.stat", stat_fields, &s->stat.have, &s->stat, err) < 0)
        return -1;
      est = tree_key (v, "kernel_estimated");
      if (est && YAJL_IS_TRUE (est) && (s->stat.have & CG_STAT_KERNEL))
        s->stat.have |= CG_STAT_KERNEL_ESTIMATED;
      s->have |= CG_SNAP_STAT;
    }
  if (PRESENT ("cgroup.events"))
    {
      struct cg_cgroup_events *c = &s->cgroup_events;
      if (!YAJL_IS_OBJECT (v))
        return shim_error (err, 0, "`%s`: `cgroup.events` is not an object", what);
      if (tree_bool (v, what, "populated", CG_CEV_POPULATED, &c->have, &c->populated, err) < 0
          || tree_bool (v, what, "frozen", CG_CEV_FROZEN, &c->have, &c->frozen, err) < 0)
        return -1;
      s->have |= CG_SNAP_CGROUP_EVENTS;
    }
  if (PRESENT ("memory.oom.group"))
    {
      uint64_t g = 0;
      if (tree_u64 (v, what, "memory.oom.group", &g, err) < 0)
        return -1;
      if (g > 1)
        return shim_error (err, 0, "`%s`: `memory.oom.group` is neither 0 nor 1", what);
      s->oom_group = g == 1;
      s->have |= CG_SNAP_OOM_GROUP;
    }
  if (PRESENT ("cgroup.id"))
    {
      if (tree_u64 (v, what, "cgroup.id", &s->cgroup_id, err) < 0)
        return -1;
      s->have |= CG_SNAP_ID;
    }
  if (PRESENT ("memory_localevents"))
    {
      if (!YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
        return shim_error (err, 0, "`%s`: `memory_localevents` is not a boolean", what);
      s->localevents = YAJL_IS_TRUE (v);
      s->have |= CG_SNAP_LOCALEVENTS;
    }
  if (PRESENT ("cgroup_v1") && YAJL_IS_TRUE (v))
    {
      s->have |= CG_SNAP_V1;
      if (PRESENT ("cgroup_v1.nested"))
        {
          if (!YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
            return shim_error (err, 0, "`%s`: `cgroup_v1.nested` is not a boolean", what);
          s->v1_nested = YAJL_IS_TRUE (v);
        }
      else
        s->v1_nested = true; /* unknown: assume the worst */
    }
#undef PRESENT
  return 0;
}

int
cg_snapshot_from_json (const char *json, const char *what, struct cg_snapshot *out,
                       shim_error_t *err)
{
  char errbuf[256] = "";
  yajl_val node = yajl_tree_parse (json, errbuf, sizeof errbuf);
  int ret;

  if (node == NULL)
    {
      /* yajl's message ends with a newline and can span lines: keep line one. */
      errbuf[strcspn (errbuf, "\n")] = '\0';
      return shim_error (err, 0, "`%s`: invalid JSON: %s", what, errbuf[0] ? errbuf : "parse error");
    }
  if (YAJL_IS_NULL (node))
    {
      yajl_tree_free (node);
      return shim_error (err, 0, "`%s`: cgroup snapshot is null", what);
    }
  ret = cg_snapshot_from_tree (node, what, out, err);
  yajl_tree_free (node);
  return ret;
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
