/* SPDX-License-Identifier: Apache-2.0 */
/* init's pid reaches the verdict only from the initial pid namespace: the
 * kernel log names victims by their pid there, so a runtime inside a
 * container (a pid namespace of its own) must not match them to init. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "tap.h"
#include "evidence/input.h"

/* What the child saw, through a pipe: util_ns_initial ("pid") and the
 * init_pid the input builder kept for pid 4121. */
struct seen
{
  int initial;
  int64_t init_pid;
};

static struct seen
look (void)
{
  struct evidence_sources src;
  struct seen s;

  evidence_input_init (&src, "c1", true);
  evidence_input_init_pid (&src, 4121);
  s.initial = util_ns_initial ("pid");
  s.init_pid = src.in.init_pid;
  return s;
}

int
main (void)
{
  struct stat st;
  struct seen here = look ();
  bool initial = stat ("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCUL;
  int p[2];
  pid_t pid;
  int status;

  ok (here.initial == (initial ? 1 : 0), "this process: util_ns_initial (\"pid\") matches its ns inode");
  ok (here.init_pid == (initial ? 4121 : 0), "this process: init's pid kept only in the initial pid namespace");
  errno = 0;
  ok (util_ns_initial ("net") == -1 && errno == EINVAL, "a namespace without a known initial inode: EINVAL");

  /* A child of a process that unshared its pid namespace lives in a new
   * one: there the pid is not the kernel log's.  The unshare happens in a
   * helper process, not here: once the new namespace's first process has
   * exited, the kernel refuses any further fork in it (ENOMEM), and
   * LeakSanitizer's check at this process's exit needs one. */
  if (pipe (p) < 0)
    {
      printf ("# pipe: %s\n", strerror (errno));
      ok (0, "a pipe for the child's report");
      return 1;
    }
  pid = fork ();
  if (pid == 0)
    {
      pid_t grandchild;
      int gstatus;

      if (unshare (CLONE_NEWPID) < 0)
        {
          printf ("# unshare (CLONE_NEWPID): %s\n", strerror (errno));
          _exit (2);
        }
      grandchild = fork ();
      if (grandchild == 0)
        {
          /* Field by field into zeroed bytes: the struct's padding is never
           * written, and valgrind counts sending it as an error. */
          struct seen s, l = look ();
          memset (&s, 0, sizeof s);
          s.initial = l.initial;
          s.init_pid = l.init_pid;
          _exit (write (p[1], &s, sizeof s) == (ssize_t) sizeof s ? 0 : 1);
        }
      if (grandchild < 0 || waitpid (grandchild, &gstatus, 0) != grandchild)
        _exit (3);
      _exit (WIFEXITED (gstatus) ? WEXITSTATUS (gstatus) : 4);
    }
  close (p[1]);
  {
    struct seen child = { -1, -1 };
    bool got = pid > 0 && read (p[0], &child, sizeof child) == (ssize_t) sizeof child;
    ok (got && waitpid (pid, &status, 0) == pid && status == 0, "the child in a new pid namespace reported");
    ok (got && child.initial == 0, "child pid namespace: util_ns_initial (\"pid\") is 0");
    ok (got && child.init_pid == 0, "child pid namespace: init's pid is not kept (0: unknown)");
  }
  return done_testing ();
}
