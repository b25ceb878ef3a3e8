/* SPDX-License-Identifier: Apache-2.0 */
/* The command table's entries.  Each parses its own options, makes one call
 * into the runtime (runtime/runtime.h), prints what that returns, and
 * returns the process exit code (>= 0), -1 with *err set, or CMD_HELP. */
#ifndef SHIM_COMMANDS_H
#define SHIM_COMMANDS_H

#include <getopt.h>

#include "common/error.h"
#include "runtime/runtime.h"

typedef int (*cli_handler) (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);

/* A handler's return when --help or -h was among its options (before its
 * operands): main prints the command's usage from the table, exit 0. */
#define CMD_HELP (-2)
/* A handler's return when *err is set and the command failed as runc's
 * exec does: main prints the error, exit 255 (a process's own exit code
 * passes through as the handler's return). */
#define CMD_FAILED_255 (-3)
/* --help in each command's getopt_long table ('h' in its short options). */
#define CMD_HELP_OPTION { "help", no_argument, NULL, 'h' }

/* The options of a command that has none but --help: 0 with optind at its
 * first operand, CMD_HELP, or -1 with *err set (CMD names the command). */
int cmd_help_only (const char *cmd, int argc, char **argv, shim_error_t *err);

/* --preserve-fds N (runc's run, create, exec): ARG parsed into *N, then,
 * once all options are parsed (so that --help still wins), fds 3 to 3+N-1
 * checked to be open; CMD names the command in the error. */
int cmd_parse_preserve_fds (const char *cmd, const char *arg, unsigned int *n, shim_error_t *err);
int cmd_check_preserved_fds (const char *cmd, unsigned int n, shim_error_t *err);

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
int cmd_verdicts (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);
/* runc's commands shim does not implement (checkpoint, restore): --help,
 * or an error saying so; argv[0] is the command's name. */
int cmd_unsupported (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err);

/* Each command's usage, next to its options (the table's usage column):
 * "usage: shim CMD ...\n\n", then a line per option with its meaning at
 * column 33; main adds the line of --help. */
extern const char cmd_run_usage[];
extern const char cmd_create_usage[];
extern const char cmd_start_usage[];
extern const char cmd_kill_usage[];
extern const char cmd_delete_usage[];
extern const char cmd_state_usage[];
extern const char cmd_list_usage[];
extern const char cmd_verdicts_usage[];
extern const char cmd_ps_usage[];
extern const char cmd_events_usage[];
extern const char cmd_exec_usage[];
extern const char cmd_pause_usage[];
extern const char cmd_resume_usage[];
extern const char cmd_update_usage[];
extern const char cmd_checkpoint_usage[];
extern const char cmd_restore_usage[];
extern const char cmd_features_usage[];
extern const char cmd_spec_usage[];

#endif
