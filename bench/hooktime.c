/* SPDX-License-Identifier: Apache-2.0 */
/* Times one OCI hook for bench/run.sh: what the runtime waits for.
 *
 *   hooktime LOG HOOK [ARGS...]
 *
 * Runs HOOK with ARGS (ARGS[0] is its argv[0]) on this stdin, stdout and
 * stderr, waits for it, and appends to LOG one line
 *   STAGE NANOSECONDS STATUS
 * where STAGE is the last argument (the hook's stage, as the bench's
 * bundles name it) and NANOSECONDS the time from the fork to the reap.
 * Exits with the hook's status.  A runtime runs a hook and waits for it
 * before the container goes on, so this is the hook's share of the
 * container's critical path, without the noise of the runtime's own. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int
main (int argc, char **argv)
{
  long long t0;
  char line[256];
  int status = 0, fd, n;
  pid_t pid;

  if (argc < 4)
    {
      fprintf (stderr, "usage: hooktime LOG HOOK ARGV0 [ARGS...]\n");
      return 2;
    }
  t0 = now_ns ();
  pid = fork ();
  if (pid < 0)
    {
      perror ("hooktime: fork");
      return 1;
    }
  if (pid == 0)
    {
      execv (argv[2], argv + 3);
      perror ("hooktime: exec");
      _exit (127);
    }
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      {
        perror ("hooktime: waitpid");
        return 1;
      }
  n = snprintf (line, sizeof (line), "%s %lld %d\n", argv[argc - 1], now_ns () - t0,
                WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
  fd = open (argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || write (fd, line, (size_t) n) != n)
    perror ("hooktime: write the log");
  if (fd >= 0)
    close (fd);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
