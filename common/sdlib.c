/* SPDX-License-Identifier: Apache-2.0 */
#include "common/sdlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>

static struct sdlib lib;
static bool loaded;

/* Each field of struct sdlib and the symbol it is resolved from. */
static const struct
{
  const char *name;
  size_t offset;
} symbols[] = {
#define SYM(field, name) { name, offsetof (struct sdlib, field) }
  SYM (bus_new, "sd_bus_new"),
  SYM (bus_set_address, "sd_bus_set_address"),
  SYM (bus_start, "sd_bus_start"),
  SYM (bus_open_system, "sd_bus_open_system"),
  SYM (bus_open_user, "sd_bus_open_user"),
  SYM (bus_get_property_string, "sd_bus_get_property_string"),
  SYM (bus_unref, "sd_bus_unref"),
  SYM (bus_flush_close_unref, "sd_bus_flush_close_unref"),
  SYM (bus_process, "sd_bus_process"),
  SYM (bus_wait, "sd_bus_wait"),
  SYM (bus_call, "sd_bus_call"),
  SYM (bus_call_method, "sd_bus_call_method"),
  SYM (bus_match_signal, "sd_bus_match_signal"),
  SYM (bus_slot_unref, "sd_bus_slot_unref"),
  SYM (bus_message_new_method_call, "sd_bus_message_new_method_call"),
  SYM (bus_message_append, "sd_bus_message_append"),
  SYM (bus_message_open_container, "sd_bus_message_open_container"),
  SYM (bus_message_close_container, "sd_bus_message_close_container"),
  SYM (bus_message_read, "sd_bus_message_read"),
  SYM (bus_message_unref, "sd_bus_message_unref"),
  SYM (bus_error_free, "sd_bus_error_free"),
  SYM (bus_error_is_set, "sd_bus_error_is_set"),
  SYM (bus_error_has_name, "sd_bus_error_has_name"),
#undef SYM
};

int
sdlib_libc_check (const char *linked, const char *loaded, shim_error_t *err)
{
  if (loaded && strcmp (linked, loaded) == 0)
    return 0;
  return shim_error_plain (err, ENOEXEC,
                           "load %s: this static build of shim has glibc %s, the system's libc.so.6 is %s; "
                           "rebuild it (or build it with STATIC=0)",
                           SDLIB_SONAME, linked, loaded ? loaded : "of an unknown version");
}

/* In a static binary (no dynamic loader: AT_BASE is 0) dlopen brings in
 * libc.so.6 and ld.so beside the libc linked in, and they share the
 * loader's private structures, whose layout only the same glibc version
 * agrees on.  Checked before libsystemd is loaded, so that a binary left
 * behind by a glibc upgrade refuses rather than fails in a D-Bus call. */
static int
same_libc (shim_error_t *err)
{
  const char *(*version) (void);
  void *h;

  if (getauxval (AT_BASE) != 0)
    return 0;
  h = dlopen ("libc.so.6", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (h == NULL)
    return shim_error_plain (err, ENOENT, "load libc.so.6 for %s: %s", SDLIB_SONAME, dlerror ());
  version = (const char *(*) (void)) dlsym (h, "gnu_get_libc_version");
  return sdlib_libc_check (gnu_get_libc_version (), version ? version () : NULL, err);
}

const struct sdlib *
sdlib_load (shim_error_t *err)
{
  struct sdlib l;
  void *h;

  if (loaded)
    return &lib;
  if (same_libc (err) < 0)
    return NULL;
  h = dlopen (SDLIB_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (h == NULL)
    {
      shim_error_plain (err, ENOENT, "load %s: %s", SDLIB_SONAME, dlerror ());
      return NULL;
    }
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    {
      void *f = dlsym (h, symbols[i].name);
      if (f == NULL)
        {
          shim_error_plain (err, ENOSYS, "load %s: no %s in it", SDLIB_SONAME, symbols[i].name);
          dlclose (h);
          return NULL;
        }
      *(void **) ((char *) &l + symbols[i].offset) = f;
    }
  lib = l;
  loaded = true;
  return &lib;
}

bool
sdlib_loaded (void)
{
  return loaded;
}
