/* SPDX-License-Identifier: Apache-2.0 */
/* The watcher's lock (watcher.h): held, flock'ed and open for writing, by
 * the watcher until its last record is written; readers wait for it. */
#include "evidence/watcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

/* glibc names the union member only in <bits/types/sigevent_t.h>. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

bool
watcher_running (int dirfd, const char *lock_name)
{
  cleanup_close int fd = openat (dirfd, lock_name, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return false;
  return flock (fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
}

/* Whether FD's lock is free (or not lockable: nothing to wait for). */
static bool
lock_free (int fd)
{
  return flock (fd, LOCK_SH | LOCK_NB) == 0 || (errno != EWOULDBLOCK && errno != EINTR);
}

/* SIGALRM's handler while a timed lock waits: it only has to exist, so
 * that the signal ends the wait (EINTR) rather than the process. */
static void
wake (int sig)
{
  (void) sig;
}

/* A shared lock on FD within TIMEOUT_MS: 1 taken, 0 not in time, -1 the
 * timer could not be armed.  A blocked flock(2) wakes the moment the
 * holder lets go; a one-shot timer's SIGALRM to this thread, with a
 * handler installed without SA_RESTART, ends it at the deadline.  No
 * inotify: closing an instance that had a watch waits for an SRCU grace
 * period (fsnotify's group teardown), 7 to 18 ms measured here, on the
 * engine's path when a hook's poststop waits for its watcher. */
static int
lock_within (int fd, int timeout_ms)
{
  struct sigaction sa = { .sa_handler = wake }, old_sa;
  struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM };
  struct itimerspec its = { .it_value = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L } };
  long long deadline = util_monotonic_ms () + timeout_ms;
  sigset_t alrm, old_mask;
  timer_t timer;
  int r;

  ev.sigev_notify_thread_id = gettid ();
  sigemptyset (&alrm);
  sigaddset (&alrm, SIGALRM);
  if (timeout_ms <= 0)
    return 0;
  if (sigaction (SIGALRM, &sa, &old_sa) < 0)
    return -1;
  if (timer_create (CLOCK_MONOTONIC, &ev, &timer) < 0)
    {
      sigaction (SIGALRM, &old_sa, NULL);
      return -1;
    }
  sigprocmask (SIG_UNBLOCK, &alrm, &old_mask);
  if (timer_settime (timer, 0, &its, NULL) < 0)
    r = -1;
  else
    /* Another signal (a forwarded one, SIGCHLD) ends the wait early too:
     * only the deadline is "not in time". */
    do
      r = flock (fd, LOCK_SH) == 0 ? 1 : errno == EINTR ? 0 : -1;
    while (r == 0 && util_monotonic_ms () < deadline);
  /* A SIGALRM already sent is delivered, to wake, as this call returns:
   * the old action comes back only after. */
  timer_delete (timer);
  sigprocmask (SIG_SETMASK, &old_mask, NULL);
  sigaction (SIGALRM, &old_sa, NULL);
  return r;
}

/* The wait for the watcher to let go of its lock: first a try, then the
 * timed lock above.  Only where no timer could be armed, the watcher's
 * close of the lock's fd (it holds it open for writing), which inotify
 * reports as IN_CLOSE_WRITE: the watch is added before the second try, so
 * that a release between the two is not missed; other closes only cause
 * another try. */
bool
watcher_wait_done (int dirfd, const char *lock_name, int timeout_ms)
{
  cleanup_close int fd = openat (dirfd, lock_name, O_RDONLY | O_CLOEXEC);
  cleanup_close int in = -1;
  long long deadline = util_monotonic_ms () + timeout_ms;
  char path[64], buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));

  if (fd < 0 || lock_free (fd))
    return true;
  switch (lock_within (fd, timeout_ms))
    {
    case 1:
      return true;
    case 0:
      return false;
    }
  /* No timer: the watcher's close of the lock, through inotify. */
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  in = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  if (in < 0 || inotify_add_watch (in, path, IN_CLOSE_WRITE) < 0)
    return !watcher_running (dirfd, lock_name);
  for (;;)
    {
      struct pollfd p = { .fd = in, .events = POLLIN };
      if (lock_free (fd))
        return true;
      if (util_poll_until (&p, 1, deadline) <= 0)
        return false;
      while (read (in, buf, sizeof buf) > 0)
        ;
    }
}
