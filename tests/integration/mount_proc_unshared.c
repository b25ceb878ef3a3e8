/* SPDX-License-Identifier: Apache-2.0 */
/* A test helper run inside containers: `mount_proc_unshared DIR` makes a
 * user, mount and pid namespace of its own (what `unshare -mrpf` does) and
 * mounts a fresh procfs on DIR there, printing "mounted" or "errno N".
 * The kernel allows that only if a procfs is already fully visible in the
 * mount namespace (no locked mount covering part of it): with the
 * container's masked /proc that is never the case, so "mounted" means a
 * bare /proc is reachable.  Built static by the tests that use it. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  int st;
  pid_t pid;

  if (argc != 2)
    {
      fprintf (stderr, "usage: mount_proc_unshared DIR\n");
      return 2;
    }
  if (unshare (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0)
    {
      printf ("unshare errno %d\n", errno);
      return 1;
    }
  /* The pid namespace is the children's. */
  pid = fork ();
  if (pid < 0)
    return 1;
  if (pid == 0)
    {
      if (mount ("proc", argv[1], "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
        printf ("errno %d\n", errno);
      else
        printf ("mounted\n");
      fflush (stdout);
      _exit (0);
    }
  if (waitpid (pid, &st, 0) < 0 || !WIFEXITED (st))
    return 1;
  return WEXITSTATUS (st);
}
