/* SPDX-License-Identifier: Apache-2.0 */
/* memhog: allocate and touch memory in steps, printing progress, so that a
 * memory limit is hit at a known point.
 *
 *   memhog [-s STEP_MIB] [-n TOTAL_MIB] [-t FILE]
 *
 * Without -n it never stops; with -n it exits 0 once TOTAL_MIB is held.
 * With -t the memory is written to FILE (e.g. on a tmpfs) instead of the
 * heap, so it is charged as shmem rather than anon. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  long step = 8, total = -1, held = 0;
  const char *file = NULL;
  int fd = -1, c;

  while ((c = getopt (argc, argv, "s:n:t:")) != -1)
    switch (c)
      {
      case 's': step = atol (optarg); break;
      case 'n': total = atol (optarg); break;
      case 't': file = optarg; break;
      default:
        fprintf (stderr, "usage: memhog [-s STEP_MIB] [-n TOTAL_MIB] [-t FILE]\n");
        return 2;
      }
  if (step <= 0)
    return 2;
  if (file && (fd = open (file, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
    {
      fprintf (stderr, "memhog: %s: %s\n", file, strerror (errno));
      return 1;
    }
  setvbuf (stdout, NULL, _IOLBF, 0);
  while (total < 0 || held < total)
    {
      size_t len = (size_t) step << 20;
      char *p = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        {
          fprintf (stderr, "memhog: mmap: %s\n", strerror (errno));
          return 1;
        }
      /* Touch every page: only touched pages are charged to the cgroup. */
      memset (p, 0x5a, len);
      if (fd >= 0)
        {
          size_t off = 0;
          while (off < len)
            {
              ssize_t w = write (fd, p + off, len - off);
              if (w < 0)
                {
                  fprintf (stderr, "memhog: write %s: %s\n", file, strerror (errno));
                  return 1;
                }
              off += (size_t) w;
            }
          munmap (p, len);
        }
      held += step;
      printf ("memhog: %ld MiB\n", held);
    }
  printf ("memhog: holding %ld MiB, done\n", held);
  return 0;
}
