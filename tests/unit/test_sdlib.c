/* SPDX-License-Identifier: Apache-2.0 */
/* libsystemd loaded on demand (common/sdlib.h): not mapped until the first
 * sdlib_load, then every function resolved, once per process. */
#include <stdio.h>
#include <string.h>

#include <errno.h>
#include <string.h>

#include "common/sdlib.h"
#include "tap.h"

/* Whether libsystemd is mapped into this process. */
static bool
mapped (void)
{
  char line[512];
  bool found = false;
  FILE *f = fopen ("/proc/self/maps", "re");

  if (f == NULL)
    return false;
  while (fgets (line, sizeof line, f))
    found |= strstr (line, "/" SDLIB_SONAME) != NULL;
  fclose (f);
  return found;
}

int
main (void)
{
  shim_error_t err = NULL;
  const struct sdlib *l, *again;
  bool all = true;

  ok (!mapped () && !sdlib_loaded (), "libsystemd is not loaded at start");
  l = sdlib_load (&err);
  ok (l != NULL, "sdlib_load: %s", err ? err->msg : "loaded");
  if (l == NULL)
    return done_testing ();
  for (size_t i = 0; i < sizeof *l / sizeof (void *); i++)
    all &= ((void *const *) l)[i] != NULL;
  ok (all, "every function is resolved");
  ok (mapped () && sdlib_loaded (), "libsystemd is mapped after the first load");
  again = sdlib_load (&err);
  ok (again == l, "a second load returns the same table");
  shim_error_release (&err);

  /* A static shim and the system's libc.so.6: the same glibc, or a refusal
   * that names both. */
  ok (sdlib_libc_check ("2.36", "2.36", &err) == 0 && err == NULL, "the same glibc: loaded");
  ok (sdlib_libc_check ("2.36", "2.41", &err) < 0 && err && err->status == ENOEXEC
          && strstr (err->msg, "glibc 2.36, the system's libc.so.6 is 2.41") != NULL,
      "another glibc: refused, both named (%s)", err ? err->msg : "no error");
  shim_error_release (&err);
  ok (sdlib_libc_check ("2.36", NULL, &err) < 0 && err && strstr (err->msg, "of an unknown version") != NULL,
      "no version to compare: refused");
  shim_error_release (&err);
  return done_testing ();
}
