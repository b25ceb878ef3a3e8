/* SPDX-License-Identifier: Apache-2.0 */
/* The command table's entries.  Each parses its own options, makes one call
 * into the runtime (runtime/runtime.h), prints what that returns, and
 * returns the process exit code (>= 0), or -1 with *err set. */
#ifndef SHIM_COMMANDS_H
#define SHIM_COMMANDS_H

#include "common/error.h"
#include "runtime/runtime.h"

typedef int (*cli_handler) (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);

int cmd_run (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_create (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_start (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_kill (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_delete (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_state (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_list (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_ps (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_events (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_exec (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_pause (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_resume (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_update (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_features (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
int cmd_spec (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);

/* Each command's usage, next to its options (the table's usage column). */
extern const char cmd_run_usage[];
extern const char cmd_create_usage[];
extern const char cmd_start_usage[];
extern const char cmd_kill_usage[];
extern const char cmd_delete_usage[];
extern const char cmd_state_usage[];
extern const char cmd_list_usage[];
extern const char cmd_ps_usage[];
extern const char cmd_events_usage[];
extern const char cmd_exec_usage[];
extern const char cmd_pause_usage[];
extern const char cmd_resume_usage[];
extern const char cmd_update_usage[];
extern const char cmd_features_usage[];
extern const char cmd_spec_usage[];

#endif
