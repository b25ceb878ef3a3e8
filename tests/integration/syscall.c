/* SPDX-License-Identifier: Apache-2.0 */
/* A test helper run inside containers: `syscall NR [ARG...]` makes one raw
 * syscall and prints "ok RET" or "errno N", so the seccomp tests can see
 * the exact errno of syscalls busybox has no applet for.  An argument that
 * starts with `/` is passed as a pointer to that path.  Built static by
 * security_helpers.bash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int
main (int argc, char **argv)
{
  long a[6] = { 0 };
  long r;
  int i;

  if (argc < 2 || argc > 8)
    {
      fprintf (stderr, "usage: syscall NR [ARG...]\n");
      return 2;
    }
  for (i = 2; i < argc; i++)
    a[i - 2] = argv[i][0] == '/' ? (long) argv[i] : strtol (argv[i], NULL, 0);
  r = syscall (strtol (argv[1], NULL, 0), a[0], a[1], a[2], a[3], a[4], a[5]);
  if (r < 0)
    printf ("errno %d\n", errno);
  else
    printf ("ok %ld\n", r);
  return 0;
}
