/* SPDX-License-Identifier: Apache-2.0 */
/* libsystemd, loaded (dlopen) the first time a command needs it: the
 * systemd cgroup driver's sd-bus.  Linked in, it and the five libraries it
 * pulls in are loaded and relocated at every start of shim, the hook and
 * the shim v2, most of which never talk to systemd.  (The journal is
 * spoken to without it: history/journal.c.) */
#ifndef SHIM_SDLIB_H
#define SHIM_SDLIB_H

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "common/error.h"

#define SDLIB_SONAME "libsystemd.so.0"

/* The functions used, typed by libsystemd's own declarations. */
struct sdlib
{
  __typeof__ (sd_bus_new) *bus_new;
  __typeof__ (sd_bus_set_address) *bus_set_address;
  __typeof__ (sd_bus_start) *bus_start;
  __typeof__ (sd_bus_open_system) *bus_open_system;
  __typeof__ (sd_bus_open_user) *bus_open_user;
  __typeof__ (sd_bus_get_property_string) *bus_get_property_string;
  __typeof__ (sd_bus_unref) *bus_unref;
  __typeof__ (sd_bus_flush_close_unref) *bus_flush_close_unref;
  __typeof__ (sd_bus_process) *bus_process;
  __typeof__ (sd_bus_wait) *bus_wait;
  __typeof__ (sd_bus_call) *bus_call;
  __typeof__ (sd_bus_call_method) *bus_call_method;
  __typeof__ (sd_bus_match_signal) *bus_match_signal;
  __typeof__ (sd_bus_slot_unref) *bus_slot_unref;
  __typeof__ (sd_bus_message_new_method_call) *bus_message_new_method_call;
  __typeof__ (sd_bus_message_append) *bus_message_append;
  __typeof__ (sd_bus_message_open_container) *bus_message_open_container;
  __typeof__ (sd_bus_message_close_container) *bus_message_close_container;
  __typeof__ (sd_bus_message_read) *bus_message_read;
  __typeof__ (sd_bus_message_unref) *bus_message_unref;
  __typeof__ (sd_bus_error_free) *bus_error_free;
  __typeof__ (sd_bus_error_is_set) *bus_error_is_set;
  __typeof__ (sd_bus_error_has_name) *bus_error_has_name;
};

/* The loaded library, or NULL with ERR naming what failed (the library or
 * the symbol missing); loaded once per process, a failure retried. */
const struct sdlib *sdlib_load (shim_error_t *err);

/* A static binary linked with glibc LINKED loads libsystemd only where the
 * system's libc.so.6 is of the same version LOADED (NULL: unknown): 0, or
 * -1 with ERR naming both. */
int sdlib_libc_check (const char *linked, const char *loaded, shim_error_t *err);

/* Whether libsystemd is already loaded in this process (for tests). */
bool sdlib_loaded (void);

#endif
