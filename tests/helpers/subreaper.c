/* SPDX-License-Identifier: Apache-2.0 */
/* subreaper [--hold FIFO] CMD [ARGS...]: run CMD as a child subreaper does
 * (conmon, containerd-shim): orphans of CMD, such as a container's init
 * left by `shim create`, are reparented here and reaped the moment they
 * exit.  With --hold, the first orphan to exit (init, which dies before
 * its watcher) stays a zombie until something opens FIFO for writing and
 * closes it.  Exits with CMD's exit status once no child is left. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Block until a writer has opened FIFO and closed it. */
static int
hold (const char *fifo)
{
  char buf[64];
  ssize_t n;
  int fd = open (fifo, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    {
      perror ("subreaper: open the hold fifo");
      return -1;
    }
  while ((n = read (fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    ;
  close (fd);
  return 0;
}

int
main (int argc, char **argv)
{
  const char *fifo = NULL;
  int status, rc = 0;
  siginfo_t si;
  pid_t cmd;

  if (argc > 2 && strcmp (argv[1], "--hold") == 0)
    {
      fifo = argv[2];
      argv += 2;
      argc -= 2;
    }
  if (argc < 2)
    {
      fprintf (stderr, "usage: subreaper [--hold FIFO] CMD [ARGS...]\n");
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
      /* Which child exited, left a zombie (WNOWAIT) until it is reaped. */
      memset (&si, 0, sizeof si);
      if (waitid (P_ALL, 0, &si, WEXITED | WNOWAIT) < 0)
        {
          if (errno == EINTR)
            continue;
          break; /* ECHILD: nobody left */
        }
      if (fifo && si.si_pid != cmd)
        {
          if (hold (fifo) < 0)
            return 2;
          fifo = NULL;
        }
      if (waitpid (si.si_pid, &status, 0) < 0)
        {
          perror ("subreaper: waitpid");
          return 2;
        }
      if (si.si_pid == cmd)
        rc = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
    }
  return rc;
}
