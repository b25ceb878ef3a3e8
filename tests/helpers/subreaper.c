/* SPDX-License-Identifier: Apache-2.0 */
/* subreaper CMD [ARGS...]: run CMD as a child subreaper does (conmon,
 * containerd-shim): orphans of CMD, such as a container's init left by
 * `shim create`, are reparented here and reaped the moment they exit.
 * Exits with CMD's exit status once no child is left. */
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  int status, rc = 0;
  pid_t cmd, pid;

  if (argc < 2)
    {
      fprintf (stderr, "usage: subreaper CMD [ARGS...]\n");
      return 2;
    }
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) < 0)
    {
      perror ("subreaper: prctl(PR_SET_CHILD_SUBREAPER)");
      return 2;
    }
  cmd = fork ();
  if (cmd < 0)
    {
      perror ("subreaper: fork");
      return 2;
    }
  if (cmd == 0)
    {
      execvp (argv[1], argv + 1);
      perror ("subreaper: exec");
      _exit (127);
    }
  for (;;)
    {
      pid = waitpid (-1, &status, 0);
      if (pid < 0 && errno == EINTR)
        continue;
      if (pid < 0)
        break; /* ECHILD: nobody left */
      if (pid == cmd)
        rc = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
    }
  return rc;
}
