/* SPDX-License-Identifier: Apache-2.0 */
/* forkbomb: a bounded fork bomb.  Forks up to N children that sleep, and
 * reports how many it got before fork(2) failed (pids.max answers EAGAIN).
 * Bounded so that it is harmless where no pids limit is in force.
 *
 *   forkbomb [N]      (default 512) */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 512, i;

  setvbuf (stdout, NULL, _IOLBF, 0);
  for (i = 0; i < n; i++)
    {
      pid_t p = fork ();
      if (p == 0)
        {
          pause ();
          _exit (0);
        }
      if (p < 0)
        {
          printf ("forkbomb: fork failed after %ld processes: %s\n", i, strerror (errno));
          kill (0, SIGTERM);
          return 1;
        }
    }
  printf ("forkbomb: %ld processes, no limit stopped it\n", n);
  kill (0, SIGTERM);
  return 0;
}
