/* SPDX-License-Identifier: Apache-2.0 */
/* The command table's entries.  Each parses its own options and returns the
 * process exit code (>= 0), or -1 with *err set. */
#ifndef SHIM_COMMANDS_H
#define SHIM_COMMANDS_H

#include <stdbool.h>

#include "error.h"

struct global_opts
{
  const char *root;
  const char *log;
  const char *log_format;
  bool debug;
  bool systemd_cgroup;
};

int cmd_run (struct global_opts *g, int argc, char **argv, shim_error_t *err);

#endif
