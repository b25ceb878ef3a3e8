/* SPDX-License-Identifier: Apache-2.0 */
#include "common/error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
vformat (const char *fmt, va_list ap)
{
  char *s = NULL;
  if (vasprintf (&s, fmt, ap) < 0)
    return NULL;
  return s;
}

static int
make_error (shim_error_t *err, int errno_, bool append_errno, const char *fmt, va_list ap)
{
  char *msg;

  /* The first, innermost error is the precise one: keep it. */
  if (err == NULL || *err != NULL)
    return -1;

  msg = vformat (fmt, ap);
  *err = calloc (1, sizeof (**err));
  if (*err == NULL)
    {
      free (msg);
      return -1;
    }
  (*err)->status = errno_;
  if (msg != NULL && errno_ != 0 && append_errno)
    {
      char *full = NULL;
      if (asprintf (&full, "%s: %s", msg, strerror (errno_)) >= 0)
        {
          free (msg);
          msg = full;
        }
    }
  (*err)->msg = msg ? msg : strdup ("out of memory formatting an error");
  return -1;
}

int
shim_error (shim_error_t *err, int errno_, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  make_error (err, errno_, true, fmt, ap);
  va_end (ap);
  return -1;
}

int
shim_error_plain (shim_error_t *err, int errno_, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  make_error (err, errno_, false, fmt, ap);
  va_end (ap);
  return -1;
}

int
shim_error_prefix (shim_error_t *err, const char *fmt, ...)
{
  va_list ap;
  char *prefix, *full = NULL;

  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  prefix = vformat (fmt, ap);
  va_end (ap);
  if (prefix == NULL)
    return -1;
  if (asprintf (&full, "%s: %s", prefix, (*err)->msg) >= 0)
    {
      free ((*err)->msg);
      (*err)->msg = full;
    }
  free (prefix);
  return -1;
}

int
shim_error_take (shim_error_t *err, shim_error_t *from)
{
  if (err != NULL && *err == NULL)
    {
      *err = *from;
      *from = NULL;
    }
  shim_error_release (from);
  return -1;
}

void
shim_error_release (shim_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  free ((*err)->msg);
  free (*err);
  *err = NULL;
}
