/* SPDX-License-Identifier: Apache-2.0 */
/* util_rfc3339: the calendar computed by hand (glibc's gmtime_r reads the
 * time zone file at its first call) against gmtime_r, over leap days,
 * century years, the epoch's both sides and a spread of other times. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "tap.h"

static void
by_glibc (int64_t ns, char *buf, size_t len)
{
  int64_t sec = ns / 1000000000, frac = ns % 1000000000;
  time_t s;
  struct tm tm;

  if (frac < 0)
    {
      frac += 1000000000;
      sec--;
    }
  s = (time_t) sec;
  gmtime_r (&s, &tm);
  snprintf (buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
            tm.tm_hour, tm.tm_min, tm.tm_sec, (long long) frac);
}

int
main (void)
{
  static const int64_t fixed[] = {
    0,                                /* the epoch */
    -1,                               /* its last nanosecond before */
    951782400LL * 1000000000,         /* 2000-02-29, a century's leap day */
    951868800LL * 1000000000 - 1,     /* its last nanosecond */
    4107542400LL * 1000000000,        /* 2100-03-01 (2100 has no leap day) */
    1733450000123456789LL,            /* the tests' usual time */
    INT64_MAX,                        /* 2262-04-11, the last nanosecond of int64 */
    -2208988800LL * 1000000000 + 42,  /* 1900-01-01 */
  };
  char a[64], b[64];
  int64_t ns;
  int bad = 0, n = 0;

  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    {
      util_rfc3339 (fixed[i], a, sizeof a);
      by_glibc (fixed[i], b, sizeof b);
      is_str (a, b, "%lld ns", (long long) fixed[i]);
    }
  /* Every 1000003 s (11.6 days, never a whole day) from 1900 to 2200. */
  for (ns = -2208988800LL * 1000000000; ns < 7258118400LL * 1000000000; ns += 1000003LL * 1000000000 + 7)
    {
      util_rfc3339 (ns, a, sizeof a);
      by_glibc (ns, b, sizeof b);
      n++;
      if (strcmp (a, b) != 0 && bad++ < 5)
        printf ("# %lld: %s, glibc %s\n", (long long) ns, a, b);
    }
  ok (bad == 0, "%d times from 1900 to 2200 as glibc has them (%d differ)", n, bad);
  util_rfc3339_now (a, sizeof a);
  ok (strlen (a) == 30 && a[10] == 'T' && a[29] == 'Z', "now: %s", a);
  return done_testing ();
}
