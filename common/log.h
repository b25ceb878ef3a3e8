/* SPDX-License-Identifier: Apache-2.0 */
/* Diagnostics, as runc writes them: log records go to the --log FILE, or to
 * stderr without one, as runc's JSON lines ({"level":"error","msg":...,
 * "time":...}, which containerd and podman parse for the error of a failed
 * call) or its text lines (time="..." level=error msg="...").  Errors and
 * warnings are printed on stderr too, as "shim: msg" (unless stderr is the
 * JSON log); debug lines only with --debug. */
#ifndef SHIM_LOG_H
#define SHIM_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

enum log_level
{
  LOG_ERROR,
  LOG_WARNING,
  LOG_INFO,
  LOG_DEBUG,
};

/* path may be NULL (stderr only); format is "text" or "json". */
int log_init (const char *program, const char *path, const char *format, bool debug, shim_error_t *err);
/* `run --json`: from now on the log writes nothing on stderr, which is left
 * to the one JSON line `run` prints at its end: errors and warnings are
 * held for it (log_held), info and debug lines go only to the --log FILE. */
void log_stderr_hold (void);
/* The messages of the errors and warnings held since log_stderr_hold, in
 * order (borrowed: valid until exit); their number. */
size_t log_held (const char *const **msgs);
bool log_debug_enabled (void);
void log_msg (enum log_level level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* Print an error in the one place that does, and release it. */
void log_error_release (shim_error_t *err);

#endif
