/* SPDX-License-Identifier: Apache-2.0 */
#include "common/sdlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

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

const struct sdlib *
sdlib_load (shim_error_t *err)
{
  struct sdlib l;
  void *h;

  if (loaded)
    return &lib;
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
