/* SPDX-License-Identifier: Apache-2.0 */
/* The two small kernel files every cgroup user reads, against fixtures (run
 * from the repo root):
 *   tests/unit/fixtures/proc_cgroup/NAME       the text of a /proc/PID/cgroup,
 *   tests/unit/fixtures/proc_cgroup/NAME.want  the path, or `error: ` and
 *                                              what the message must say;
 *   tests/unit/fixtures/cgroup_events/NAME     a cgroup.events. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cgroup/cgroup_files.h"
#include "tap.h"
#include "common/util.h"

#define PROC_FIXTURES "tests/unit/fixtures/proc_cgroup/"
#define EVENTS_FIXTURES "tests/unit/fixtures/cgroup_events/"

static char *
slurp (const char *dir, const char *name)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *buf = NULL;

  if (fd < 0 || util_read_file_at (fd, name, &buf, NULL, &err) < 0)
    return NULL;
  return buf;
}

static int
by_name (const struct dirent **a, const struct dirent **b)
{
  return strcmp ((*a)->d_name, (*b)->d_name);
}

static void
test_proc_cgroup_fixtures (void)
{
  struct dirent **names = NULL;
  int n = scandir (PROC_FIXTURES, &names, NULL, by_name);
  int cases = 0;

  ok (n > 0, "proc_cgroup fixtures are there");
  for (int i = 0; i < n; i++)
    {
      const char *name = names[i]->d_name;
      cleanup_free char *want_name = NULL, *buf = NULL, *want = NULL, *path = NULL;
      cleanup_error shim_error_t err = NULL;
      size_t len = strlen (name);
      int r;

      if (name[0] == '.' || (len > 5 && strcmp (name + len - 5, ".want") == 0)
          || asprintf (&want_name, "%s.want", name) < 0)
        continue;
      buf = slurp (PROC_FIXTURES, name);
      want = slurp (PROC_FIXTURES, want_name);
      if (!ok (buf && want, "%s: fixture and .want read", name))
        continue;
      want[strcspn (want, "\n")] = '\0';
      cases++;
      r = cgroup_parse_proc_cgroup (buf, &path, &err);
      if (strncmp (want, "error: ", 7) == 0)
        {
          ok (r < 0 && path == NULL, "%s: refused", name);
          has_str (err ? err->msg : NULL, want + 7, "%s: the error says why", name);
        }
      else
        {
          ok (r == 0, "%s: parsed (%s)", name, err ? err->msg : "no error");
          is_str (path, want, "%s: path", name);
        }
    }
  for (int i = 0; i < n; i++)
    free (names[i]);
  free (names);
  ok (cases >= 12, "every proc_cgroup fixture was checked (%d)", cases);
}

/* Another cgroup namespace is its own errno, so a caller can add advice. */
static void
test_proc_cgroup_status (void)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *path = NULL;

  ok (cgroup_parse_proc_cgroup ("0::/../x\n", &path, &err) < 0 && err && err->status == EXDEV,
      "outside this cgroup namespace is EXDEV");
}

/* The live file: this process is in some cgroup v2 (a hybrid host too). */
static void
test_proc_self (void)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *path = NULL;

  if (cgroup_mount_point () == NULL)
    {
      ok (1, "# SKIP no cgroup2 mounted");
      return;
    }
  ok (cgroup_proc_path (0, &path, &err) == 0, "/proc/self/cgroup reads (%s)", err ? err->msg : "no error");
  ok (path && path[0] == '/', "/proc/self/cgroup: an absolute path (%s)", path ? path : "(null)");
}

static int
events (const char *name, struct cg_cgroup_events *e, shim_error_t *err)
{
  cleanup_free char *buf = slurp (EVENTS_FIXTURES, name);

  if (buf == NULL)
    return shim_error_plain (err, ENOENT, "fixture `%s` missing", name);
  return cg_parse_cgroup_events (name, buf, e, err);
}

static void
test_cgroup_events (void)
{
  struct cg_cgroup_events e;

  {
    cleanup_error shim_error_t err = NULL;
    ok (events ("frozen", &e, &err) == 0, "frozen: parsed (%s)", err ? err->msg : "no error");
    is_int (e.have, CG_CEV_POPULATED | CG_CEV_FROZEN, "frozen: both keys");
    ok (e.populated && e.frozen, "frozen: populated and frozen");
  }
  {
    cleanup_error shim_error_t err = NULL;
    ok (events ("before-5.2", &e, &err) == 0, "before 5.2: parsed (%s)", err ? err->msg : "no error");
    is_int (e.have, CG_CEV_POPULATED, "before 5.2: no frozen key, so frozen is unknown");
    ok (!e.populated, "before 5.2: empty");
  }
  {
    cleanup_error shim_error_t err = NULL;
    ok (events ("newer-kernel", &e, &err) == 0, "a newer kernel's extra key is ignored (%s)",
        err ? err->msg : "no error");
    is_int (e.have, CG_CEV_POPULATED | CG_CEV_FROZEN, "newer kernel: the two keys");
  }
  {
    cleanup_error shim_error_t err = NULL;
    ok (events ("not-boolean", &e, &err) < 0, "populated 2 is refused");
    has_str (err ? err->msg : NULL, "not 0 or 1", "not-boolean: the error says why");
  }
  {
    cleanup_error shim_error_t err = NULL;
    ok (events ("duplicate", &e, &err) < 0, "a key given twice is refused");
  }
}

/* --systemd-cgroup's slice:prefix:name, and its refusals, which must not
 * leak the part of the path they had built (mallinfo2 counts the bytes in
 * use: the same before and after a refused path). */
static void
test_systemd_paths (void)
{
  static const struct
  {
    const char *in, *want;
  } good[] = {
    { "system.slice:shim:abc", "/system.slice/shim-abc.scope" },
    /* No cgroupsPath: runc's default, system.slice:runc:ID, as shim's. */
    { "", "/system.slice/shim-id.scope" },
    { ":shim:abc", "/system.slice/shim-abc.scope" },
    { "a-b.slice:p:n", "/a.slice/a-b.slice/p-n.scope" },
    { "-.slice::n", "/n.scope" },
    { "a-b.slice:p:c-d.slice", "/c.slice/c-d.slice" },
  };
  static const char *bad[] = { "a-b--c.slice:p:n", "a-b-.slice:p:n", "a.slice:p:x-y--z.slice", "a-b:p:n" };
  size_t i;

  for (i = 0; i < sizeof (good) / sizeof (good[0]); i++)
    {
      cleanup_error shim_error_t err = NULL;
      cleanup_free char *path = NULL;
      ok (cgroup_path_for (good[i].in, true, "id", &path, &err) == 0, "systemd `%s`: accepted (%s)", good[i].in,
          err ? err->msg : "no error");
      is_str (path, good[i].want, "systemd `%s`: the path", good[i].in);
    }
  for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
    {
      size_t before, after;
      shim_error_t err = NULL;
      char *path = NULL;
      int r;

      /* Nothing but the call and its error between the two counts. */
      before = mallinfo2 ().uordblks;
      r = cgroup_path_for (bad[i], true, "id", &path, &err);
      shim_error_release (&err);
      after = mallinfo2 ().uordblks;
      ok (r < 0 && path == NULL, "systemd `%s`: refused", bad[i]);
      is_int (after, before, "systemd `%s`: nothing leaked", bad[i]);
      cgroup_path_for (bad[i], true, "id", &path, &err);
      has_str (err ? err->msg : NULL, "is not a systemd slice name", "systemd `%s`: the error says why", bad[i]);
      shim_error_release (&err);
    }
}

/* blockIO weight onto io.weight as runc converts it (cgroup v2's
 * io.weight and systemd's IOWeight): before, v2 wrote it unconverted. */
static void
test_blkio_weight (void)
{
  static const struct
  {
    uint64_t in, out;
  } rows[] = { { 0, 0 }, { 10, 1 }, { 100, 910 }, { 500, 4950 }, { 1000, 10000 } };

  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    is_int (cgroup_blkio_weight_to_io (rows[i].in), rows[i].out, "blkio weight %llu -> io.weight",
            (unsigned long long) rows[i].in);
}

int
main (int argc, char **argv)
{
  /* Freed chunks kept in glibc's per-thread cache count as in use for
   * mallinfo2: without the cache, what is in use is what was not freed. */
  (void) argc;
  if (getenv ("GLIBC_TUNABLES") == NULL)
    {
      setenv ("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
      execv ("/proc/self/exe", argv);
    }
  test_proc_cgroup_fixtures ();
  test_proc_cgroup_status ();
  test_proc_self ();
  test_cgroup_events ();
  test_systemd_paths ();
  test_blkio_weight ();
  return done_testing ();
}
