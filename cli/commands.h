/* SPDX-License-Identifier: Apache-2.0 */
/* The command table's entries.  Each parses its own options and returns the
 * process exit code (>= 0), or -1 with *err set. */
#ifndef SHIM_COMMANDS_H
#define SHIM_COMMANDS_H

#include <stdbool.h>

#include "common/error.h"

struct global_opts
{
  const char *root;
  const char *log;
  const char *log_format;
  bool debug;
  bool systemd_cgroup;
};

int cmd_run (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_create (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_start (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_kill (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_delete (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_state (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_list (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_ps (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_events (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_exec (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_pause (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_resume (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_update (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_features (struct global_opts *g, int argc, char **argv, shim_error_t *err);
int cmd_spec (struct global_opts *g, int argc, char **argv, shim_error_t *err);

/* "KILL", "SIGKILL", "9", "RTMIN+1": the signal number, or -1. */
int parse_signal (const char *s, int *out);

#endif
