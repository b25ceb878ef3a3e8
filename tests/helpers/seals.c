/* SPDX-License-Identifier: Apache-2.0 */
/* seals PATH: the memfd seals of the file PATH opens (F_GET_SEALS), as
 * words, or "none" for a file that cannot have any. */
#include <fcntl.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  int fd, s;
  if (argc != 2)
    {
      fprintf (stderr, "usage: seals PATH\n");
      return 2;
    }
  fd = open (argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      perror (argv[1]);
      return 1;
    }
  s = fcntl (fd, F_GET_SEALS);
  if (s <= 0)
    {
      puts ("none");
      return 0;
    }
  printf ("%s%s%s%s%s\n", s & F_SEAL_SEAL ? "seal " : "", s & F_SEAL_SHRINK ? "shrink " : "",
          s & F_SEAL_GROW ? "grow " : "", s & F_SEAL_WRITE ? "write " : "",
          s & F_SEAL_FUTURE_WRITE ? "future_write" : "");
  return 0;
}
