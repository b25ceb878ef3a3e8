/* SPDX-License-Identifier: Apache-2.0 */
/* One error pattern for the whole project (crun's): a function that can fail
 * returns a negative value and fills a shim_error_t with the errno and a
 * message naming what failed and where (JSON path, file, syscall).  Callers
 * return early, optionally adding context with shim_error_prefix(); exactly one
 * place, the CLI, prints it. */
#ifndef SHIM_ERROR_H
#define SHIM_ERROR_H

#include <stdarg.h>

struct shim_error_s
{
  int status; /* errno, or 0 when the failure is not a syscall's */
  char *msg;
};
typedef struct shim_error_s *shim_error_t;

/* Fill *err (if it is not already set) and return -1.  errno_ of 0 means the
 * message stands alone; otherwise ": strerror(errno_)" is appended. */
int shim_error (shim_error_t *err, int errno_, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* The same, for a message that says it all (a validation error): the errno is
 * recorded for callers but not appended. */
int shim_error_plain (shim_error_t *err, int errno_, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Shorthand for shim_error (err, errno, ...): use right after a failed syscall. */
#define shim_error_errno(err, ...) shim_error ((err), errno, __VA_ARGS__)

/* Prepend "context: " to an existing error; returns -1 so it can be returned. */
int shim_error_prefix (shim_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Hand an error a callee filled in a local object (to look at it first) to
 * the caller's ERR: moved when ERR is empty, else released, since the first
 * error wins.  *FROM is NULL after; returns -1 so it can be returned. */
int shim_error_take (shim_error_t *err, shim_error_t *from);

void shim_error_release (shim_error_t *err);

#endif
