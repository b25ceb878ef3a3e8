/* SPDX-License-Identifier: Apache-2.0 */
/* libsystemd loaded on demand (common/sdlib.h): not mapped until the first
 * sdlib_load, then every function resolved, once per process. */
#include <stdio.h>
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
  return done_testing ();
}
