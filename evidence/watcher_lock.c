/* SPDX-License-Identifier: Apache-2.0 */
/* The watcher's lock (watcher.h): held, flock'ed and open for writing, by
 * the watcher until its last record is written; readers wait for it. */
#include "evidence/watcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "common/util.h"

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

/* The watcher closes the lock's fd when it ends (it holds it open for
 * writing), which inotify reports as IN_CLOSE_WRITE: a wait that sleeps
 * in poll(2) until then, bounded, instead of retrying the lock on a
 * timer.  The watch is added before the second try, so that a release
 * between the two is not missed; other closes only cause another try.
 * The first try comes before any inotify instance: closing one that had a
 * watch waits for an SRCU grace period in the kernel (fsnotify's group
 * teardown), 7 to 18 ms here, a cost the usual case, a watcher already
 * done, need not pay. */
bool
watcher_wait_done (int dirfd, const char *lock_name, int timeout_ms)
{
  cleanup_close int fd = openat (dirfd, lock_name, O_RDONLY | O_CLOEXEC);
  cleanup_close int in = -1;
  long long deadline = util_monotonic_ms () + timeout_ms;
  char path[64], buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));

  if (fd < 0 || lock_free (fd))
    return true;
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
