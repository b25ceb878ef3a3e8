/* SPDX-License-Identifier: Apache-2.0 */
/* A tiny TAP producer for the unit tests: `ok N - desc` / `not ok N - desc`,
 * diagnostics as `# ...`, and done_testing() returning the exit status
 * (non-zero when any test failed). */
#ifndef SHIM_TAP_H
#define SHIM_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count __attribute__ ((unused));
static int tap_failed __attribute__ ((unused));

static inline int __attribute__ ((format (printf, 2, 3)))
tap_ok (int pass, const char *fmt, ...)
{
  va_list ap;

  printf ("%sok %d - ", pass ? "" : "not ", ++tap_count);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  if (!pass)
    tap_failed++;
  fflush (stdout);
  return pass;
}

/* ok (cond, "desc %d", ...) */
#define ok(cond, ...) tap_ok (!!(cond), __VA_ARGS__)

/* is_str (got, want, "desc"): NULL is a value, equal only to NULL. */
#define is_str(got, want, ...)                                                                     \
  do                                                                                               \
    {                                                                                              \
      const char *_g = (got), *_w = (want);                                                        \
      int _p = (_g == NULL || _w == NULL) ? _g == _w : strcmp (_g, _w) == 0;                       \
      if (!tap_ok (_p, __VA_ARGS__))                                                               \
        printf ("#   got:  %s\n#   want: %s\n", _g ? _g : "(null)", _w ? _w : "(null)");            \
    }                                                                                              \
  while (0)

/* is_int (got, want, "desc") */
#define is_int(got, want, ...)                                                                     \
  do                                                                                               \
    {                                                                                              \
      long long _g = (long long) (got), _w = (long long) (want);                                   \
      if (!tap_ok (_g == _w, __VA_ARGS__))                                                         \
        printf ("#   got:  %lld\n#   want: %lld\n", _g, _w);                                       \
    }                                                                                              \
  while (0)

/* has_str (haystack, needle, "desc"): haystack contains needle. */
#define has_str(hay, needle, ...)                                                                  \
  do                                                                                               \
    {                                                                                              \
      const char *_h = (hay), *_n = (needle);                                                      \
      if (!tap_ok (_h != NULL && strstr (_h, _n) != NULL, __VA_ARGS__))                            \
        printf ("#   in:   %s\n#   want: ...%s...\n", _h ? _h : "(null)", _n);                     \
    }                                                                                              \
  while (0)

#define diag(...) (printf ("# "), printf (__VA_ARGS__), putchar ('\n'))
#define plan(n) printf ("1..%d\n", (n))
#define done_testing() (printf ("1..%d\n", tap_count), tap_failed ? 1 : 0)

#endif
