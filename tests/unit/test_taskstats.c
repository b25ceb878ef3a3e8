/* SPDX-License-Identifier: Apache-2.0 */
/* init's exit code through the kernel's taskstats records (taskstats.h),
 * on this kernel: a child's exit code and its killing signal, a thread
 * group whose leader leaves first or last, and the socket filter that
 * keeps every other task's exit out of the queue.  Needs root in the
 * initial namespaces (CAP_NET_ADMIN), as the watcher does. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evidence/taskstats.h"
#include "tap.h"

/* A child that waits for a byte on a pipe, then runs WHAT. */
struct child
{
  pid_t pid;
  int go;
};

static struct child
start (void (*what) (void))
{
  int p[2];
  struct child c = { -1, -1 };
  char b;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return c;
  c.pid = fork ();
  if (c.pid == 0)
    {
      close (p[1]);
      if (read (p[0], &b, 1) != 1)
        _exit (100);
      what ();
      _exit (101);
    }
  close (p[0]);
  c.go = p[1];
  return c;
}

/* Let it run to its end and reap it; the records are queued by then. */
static void
finish (struct child *c)
{
  int st;
  (void) !write (c->go, "x", 1);
  close (c->go);
  while (waitpid (c->pid, &st, 0) < 0 && errno == EINTR)
    ;
}

static void
exit_3 (void)
{
  _exit (3);
}

static void
killed (void)
{
  raise (SIGKILL);
}

static void *
thread_exit_5 (void *arg)
{
  (void) arg;
  usleep (100000);
  _exit (5);
}

/* The leader leaves first (SYS_exit of the main thread alone), another
 * thread later ends the group with exit(5): the group's status is 5, the
 * leader's own record says 0. */
static void
leader_first_run (void)
{
  pthread_t t;
  if (pthread_create (&t, NULL, thread_exit_5, NULL) != 0)
    _exit (102);
  syscall (SYS_exit, 0);
}

static void *
thread_returns (void *arg)
{
  (void) arg;
  return NULL;
}

/* A thread comes and goes, then the leader exits 4, last. */
static void
leader_last_run (void)
{
  pthread_t t;
  if (pthread_create (&t, NULL, thread_returns, NULL) != 0 || pthread_join (t, NULL) != 0)
    _exit (102);
  _exit (4);
}

/* The thread groups run as this program exec'd again: under valgrind
 * (which does not follow an exec) they are the kernel's threads, not
 * valgrind's emulation of them. */
static const char *self; /* argv[0]: under valgrind /proc/self/exe is valgrind */

static void
reexec (const char *scenario)
{
  execl (self, self, scenario, (char *) NULL);
  _exit (103);
}

static void
leader_first (void)
{
  reexec ("leader-first");
}

static void
leader_last (void)
{
  reexec ("leader-last");
}

static int
watch_child (void (*what) (void), int *status, struct taskstats_watch *out)
{
  struct child c = start (what);
  shim_error_t err = NULL;
  int r;

  if (c.pid < 0 || taskstats_watch_open (out, (uint32_t) c.pid, &err) < 0)
    {
      printf ("# taskstats_watch_open: %s\n", err ? err->msg : strerror (errno));
      shim_error_release (&err);
      if (c.pid > 0)
        finish (&c);
      return -1;
    }
  finish (&c);
  taskstats_watch_collect (out);
  r = taskstats_watch_status (out, status);
  return r;
}

int
main (int argc, char **argv)
{
  struct taskstats_watch t;
  int status = -1;

  self = argv[0];
  if (argc == 2 && strcmp (argv[1], "leader-first") == 0)
    leader_first_run ();
  if (argc == 2 && strcmp (argv[1], "leader-last") == 0)
    leader_last_run ();

  int r = watch_child (exit_3, &status, &t);
  ok (r == 1 && WIFEXITED (status) && WEXITSTATUS (status) == 3,
      "a child's exit 3: wait status exit 3 (%#x)", status);
  {
    /* Another task's exit is filtered out before it is queued. */
    struct child other = start (exit_3);
    struct pollfd p = { .fd = t.fd, .events = POLLIN };
    finish (&other);
    ok (t.fd >= 0 && poll (&p, 1, 0) == 0, "another process's exit never reaches the queue");
    taskstats_watch_close (&t);
  }
  status = -1;
  r = watch_child (killed, &status, &t);
  ok (r == 1 && WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL,
      "a child killed by SIGKILL: wait status SIGKILL (%#x)", status);
  taskstats_watch_close (&t);
  status = -1;
  r = watch_child (leader_last, &status, &t);
  ok (r == 1 && WIFEXITED (status) && WEXITSTATUS (status) == 4,
      "a thread group whose leader leaves last: its exit 4 (%#x)", status);
  ok (t.leader_last, "  the leader's record carried the group's total");
  taskstats_watch_close (&t);
  status = -1;
  r = watch_child (leader_first, &status, &t);
  ok (r == 0, "a leader that left first with 0, the group ended by exit 5: not known (%d, %#x)", r,
      status);
  ok (t.leader_seen && t.last_seen && t.leader_code == 0 && WEXITSTATUS (t.last_code) == 5,
      "  both records seen: the leader's 0, the last thread's 5");
  taskstats_watch_close (&t);

  t.lost = true;
  ok (taskstats_watch_status (&t, &status) == 0, "records lost: not known");
  return done_testing ();
}
