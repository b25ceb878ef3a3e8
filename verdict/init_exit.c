/* SPDX-License-Identifier: Apache-2.0 */
#include "verdict/init_exit.h"

#include "common/pidfd.h"

/* How long an emptied cgroup's watcher waits for init to be reaped, for its
 * exit status: engines reap at once; a parent that never does must not
 * keep the watcher forever. */
#define REAP_WAIT_MS 10000
/* Once init is gone, how often the cgroup is looked at again.  Seen on
 * 6.18: the watcher of a container deleted right after create stayed in
 * poll on the removed cgroup.events for good.  The kernel rate-limits
 * cgroup.events notifications (one per 10 ms, the rest on a timer) and
 * rmdir cancels that timer, so "populated 0" can be lost. */
#define AFTER_INIT_RECHECK_MS 1000

void
init_exit_init (struct init_exit *ie, int pidfd)
{
  int probe;
  *ie = (struct init_exit){ .pidfd = pidfd };
  ie->follow_status = pidfd >= 0 && pidfd_exit_status (pidfd, &probe) >= 0;
}

struct pollfd
init_exit_pollfd (const struct init_exit *ie)
{
  /* POLLIN when init exits (in a pid namespace, after every other process
   * of it); then, with no event asked for, POLLHUP alone once it is reaped
   * (6.15 wakes pollers then; a zombie stays POLLIN, which would spin). */
  return (struct pollfd){ .fd = ie->done ? -1 : ie->pidfd, .events = ie->exited ? 0 : POLLIN };
}

int
init_exit_timeout (const struct init_exit *ie)
{
  return ie->exited ? AFTER_INIT_RECHECK_MS : -1;
}

static void
learn_exit (struct init_exit *ie)
{
  if (ie->follow_status && !ie->known)
    ie->known = pidfd_exit_status (ie->pidfd, &ie->status) == 1;
  ie->done = true;
}

int
init_exit_event (struct init_exit *ie, short revents)
{
  int news = 0;
  if ((revents & (POLLIN | POLLHUP | POLLERR)) && !ie->exited)
    {
      ie->exited = true;
      news |= INIT_EXIT_EXITED;
      /* Without a status to wait for, the pidfd has told all it can. */
      ie->done = !ie->follow_status;
    }
  if (revents & (POLLHUP | POLLERR))
    {
      learn_exit (ie);
      if (ie->known)
        news |= INIT_EXIT_STATUS_KNOWN;
    }
  return news;
}

bool
init_exit_wait_reap (struct init_exit *ie, int stop_fd, bool (*stop) (int fd, void *arg), void *arg)
{
  struct pollfd p[2] = { { .fd = ie->pidfd, .events = 0 }, { .fd = stop_fd, .events = POLLIN } };

  if (!ie->follow_status)
    return true;
  while (!ie->done && poll (p, 2, REAP_WAIT_MS) > 0)
    {
      if (p[0].revents & (POLLHUP | POLLERR))
        learn_exit (ie);
      else if (stop && stop (stop_fd, arg))
        return false;
    }
  return true;
}
