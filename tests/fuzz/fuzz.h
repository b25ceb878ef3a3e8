/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): the input as a
 * buffer of exactly its size (so ASan sees a read one byte past it) or as
 * a C string (for the parsers that take one; an input with a NUL in it is
 * then cut there, as the parser's callers would cut it). */
#ifndef SHIM_FUZZ_H
#define SHIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* A malloc'd copy of exactly size bytes (one byte for an empty input). */
static inline char *
fuzz_bytes (const uint8_t *data, size_t size)
{
  char *p = malloc (size ? size : 1);
  if (p == NULL)
    abort ();
  if (size)
    memcpy (p, data, size);
  return p;
}

/* A malloc'd NUL-terminated copy. */
static inline char *
fuzz_string (const uint8_t *data, size_t size)
{
  char *p = malloc (size + 1);
  if (p == NULL)
    abort ();
  memcpy (p, data, size);
  p[size] = '\0';
  return p;
}

/* Every failure must say what failed: an error object with a message. */
static inline void
fuzz_check_error (int r, shim_error_t *err)
{
  if (r < 0 && (*err == NULL || (*err)->msg == NULL || (*err)->msg[0] == '\0'))
    abort ();
  shim_error_release (err);
}

static inline void
fuzz_warn (void *opaque, const char *json_path, const char *why)
{
  (void) opaque;
  if (json_path == NULL || why == NULL)
    abort ();
}

#endif
