/* SPDX-License-Identifier: Apache-2.0 */
/* The order in which code opens files, through inotify: the tests' view of
 * "read X before Y". */
#ifndef SHIM_TEST_FIRST_OPEN_H
#define SHIM_TEST_FIRST_OPEN_H

#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* The name of the first file opened that inotify instance IN (IN_OPEN
 * watches, non-blocking) has queued, into OUT (N bytes); "" when none. */
static inline const char *
first_open (int in, char *out, size_t n)
{
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  ssize_t len = read (in, buf, sizeof buf);

  out[0] = '\0';
  for (const char *p = buf; len > 0 && p < buf + len;)
    {
      const struct inotify_event *e = (const void *) p;
      if (e->len > 0)
        {
          snprintf (out, n, "%s", e->name);
          break;
        }
      p += sizeof *e + e->len;
    }
  return out;
}

#endif
