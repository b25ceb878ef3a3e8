/* SPDX-License-Identifier: Apache-2.0 */
/* The termination-log's write rule (evidence/mark.c): written once, only on
 * an OOM kill, only when the workload left it empty; a file that is not a
 * regular one (a symlink opened as itself) is left alone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "evidence/mark.h"
#include "verdict/verdict.h"

static char dir[] = "/tmp/test_mark.XXXXXX";

/* DIR/NAME's whole text (at most 4 KiB), "" when unreadable. */
static const char *
slurp (const char *name)
{
  static char buf[4096];
  char path[256];
  ssize_t n;
  int fd;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  buf[0] = '\0';
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return buf;
  n = read (fd, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = '\0';
  close (fd);
  return buf;
}

/* DIR/NAME created with TEXT, opened for writing (FLAGS added). */
static int
make_file (const char *name, const char *text, int flags)
{
  char path[256];
  int fd;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0644);
  if (fd >= 0 && text[0] && write (fd, text, strlen (text)) != (ssize_t) strlen (text))
    {
      close (fd);
      return -1;
    }
  return fd;
}

static struct verdict
verdict_of (enum verdict_tri oom, const char *message)
{
  struct verdict v;
  memset (&v, 0, sizeof v);
  v.oom_killed = oom;
  snprintf (v.message, sizeof v.message, "%s", message);
  return v;
}

int
main (void)
{
  struct verdict oom = verdict_of (VERDICT_TRUE, "container c was OOM-killed: it hit its 32 MiB memory limit");
  struct verdict killed = verdict_of (VERDICT_FALSE, "container c was killed by SIGKILL");
  struct verdict unknown = verdict_of (VERDICT_NULL, "container c stopped; unknown");
  shim_error_t err = NULL;
  char path[256];
  int fd, fd2;

  if (mkdtemp (dir) == NULL)
    {
      perror ("mkdtemp");
      return 1;
    }

  /* Empty: the message, one line.  Opened without O_APPEND: the rule sets
   * it itself. */
  fd = make_file ("empty", "", 0);
  is_int (mark_termination_log (fd, &oom, &err), 1, "empty file: written");
  is_str (slurp ("empty"), "container c was OOM-killed: it hit its 32 MiB memory limit\n",
          "empty file: the message and a newline");
  /* Again (the watcher, then `state`, then `delete`): no second line. */
  is_int (mark_termination_log (fd, &oom, &err), 0, "second call: nothing to do");
  fd2 = open (strcat (strcpy (path, dir), "/empty"), O_WRONLY | O_APPEND | O_CLOEXEC);
  is_int (mark_termination_log (fd2, &oom, &err), 0, "another fd on it: nothing to do");
  is_str (slurp ("empty"), "container c was OOM-killed: it hit its 32 MiB memory limit\n",
          "after three calls: still one line");
  close (fd2);
  close (fd);

  /* What the workload wrote stays as it is. */
  fd = make_file ("own", "my own last words\n", 0);
  is_int (mark_termination_log (fd, &oom, &err), 0, "workload's file: nothing to do");
  is_str (slurp ("own"), "my own last words\n", "workload's file: untouched");
  close (fd);

  /* No OOM kill (false or unknown): nothing written. */
  fd = make_file ("nooom", "", 0);
  is_int (mark_termination_log (fd, &killed, &err), 0, "killed, not OOM: nothing to do");
  is_int (mark_termination_log (fd, &unknown, &err), 0, "unknown: nothing to do");
  is_str (slurp ("nooom"), "", "no OOM kill: still empty");
  close (fd);

  /* A symlink, as O_PATH | O_NOFOLLOW opens it: the link, not a regular
   * file; its target is untouched. */
  close (make_file ("target", "", 0));
  snprintf (path, sizeof path, "%s/link", dir);
  ok (symlink ("target", path) == 0, "symlink made");
  fd = open (path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  is_int (mark_termination_log (fd, &oom, &err), 0, "symlink: nothing to do");
  is_str (slurp ("target"), "", "symlink: its target still empty");
  close (fd);

  /* A directory is not a regular file either. */
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  is_int (mark_termination_log (fd, &oom, &err), 0, "directory: nothing to do");
  close (fd);

  /* Another writer of ours holds the lock: left to it, no waiting. */
  fd = make_file ("locked", "", 0);
  fd2 = open (strcat (strcpy (path, dir), "/locked"), O_RDONLY | O_CLOEXEC);
  ok (flock (fd2, LOCK_EX) == 0, "lock taken by another open file");
  is_int (mark_termination_log (fd, &oom, &err), 0, "locked: nothing done, no wait");
  is_str (slurp ("locked"), "", "locked: still empty");
  close (fd2);
  close (fd);

  is_int (mark_termination_log (-1, &oom, &err), 0, "no fd: nothing to do");
  ok (err == NULL, "no error left over");

  {
    const char *names[] = { "empty", "own", "nooom", "target", "link", "locked" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      {
        snprintf (path, sizeof path, "%s/%s", dir, names[i]);
        unlink (path);
      }
    rmdir (dir);
  }
  return done_testing ();
}
