/* SPDX-License-Identifier: Apache-2.0 */
#include "evidence/init_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/pidfd.h"
#include "common/util.h"

/* Tests: behave as on a kernel whose pidfds keep no exit status (before
 * 6.15), and, with the second, as where taskstats cannot be listened to. */
#define TEST_NO_PIDFD_EXIT_ENV "SHIM_TEST_NO_PIDFD_EXIT"
#define TEST_NO_TASKSTATS_ENV "SHIM_TEST_NO_TASKSTATS"

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
init_exit_init (struct init_exit *ie, int pidfd, int64_t pid)
{
  const char *no = getenv (TEST_NO_PIDFD_EXIT_ENV);
  int probe;

  *ie = (struct init_exit){ .pidfd = pidfd, .pid = pid > 0 ? pid : 0, .ts = { .fd = -1 } };
  ie->follow_status = pidfd >= 0 && !(no && *no) && pidfd_exit_status (pidfd, &probe) >= 0;
}

void
init_exit_listen (struct init_exit *ie, bool before_reap)
{
  const char *no = getenv (TEST_NO_TASKSTATS_ENV);
  shim_error_t err = NULL;

  if ((ie->follow_status && !before_reap) || ie->pidfd < 0 || ie->pid <= 0 || ie->pid > UINT32_MAX
      || (no && *no))
    return;
  /* Not being able to listen is this host's limit, not an error: the
   * verdict then says the status was not known (or, where the pidfd keeps
   * it, learns it at the reap). */
  if (taskstats_watch_open (&ie->ts, (uint32_t) ie->pid, &err) < 0)
    shim_error_release (&err);
}

static bool
read_proc (int64_t pid, const char *name, char *buf, size_t size)
{
  char path[64];
  cleanup_close int fd = -1;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%lld/%s", (long long) pid, name);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  n = fd < 0 ? -1 : read (fd, buf, size - 1);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  return true;
}

#define EXIT_CODE_FIELD 52
int
init_exit_zombie_status (const char *stat, bool permitted, int *status)
{
  /* The fields after the comm, which may hold anything up to its last
   * ')', are one space apart; the first is the state, field 3. */
  const char *p = strrchr (stat, ')');
  long code;
  char *end;
  int field;

  if (p == NULL || p[1] != ' ' || p[2] != 'Z')
    return 0;
  p += 2;
  for (field = 3; field < EXIT_CODE_FIELD; field++)
    if ((p = strchr (p, ' ')) == NULL)
      return 0;
    else
      p++;
  errno = 0;
  code = strtol (p, &end, 10);
  if (end == p || errno || (*end != ' ' && *end != '\n' && *end != '\0'))
    return 0;
  /* An exit code in bits 8-15, or a signal (and the core bit) in 0-7;
   * 0x7f there is a stop, not a death. */
  if (code < 0 || code > 0xffff || (code & 0x7f) == 0x7f || ((code & 0xff) && (code & 0xff00))
      || (code == 0 && !permitted))
    return 0;
  *status = (int) code;
  return 1;
}

/* Only the zombie can tell: the pidfd keeps no status (before 6.15) and
 * no taskstats record came (no CAP_NET_ADMIN: rootless). */
static bool
zombie_may_tell (const struct init_exit *ie)
{
  return !ie->known && !ie->follow_status && ie->pidfd >= 0 && ie->pid > 0;
}

/* init has exited and is a zombie until its reaper (conmon, a subreaper)
 * reaps it: its /proc/PID/stat, read before, says how it died.  The
 * reaper races this read; where it wins, the status stays unknown.  Its
 * exe link, checked with the same ptrace access as stat's exit code,
 * answers EACCES without it and ENOENT with it (a zombie has no mm).  The
 * pidfd, signalled last, says that PID was still init's (ESRCH once
 * reaped; EPERM is an answer of the living): a pid is reused only once
 * reaped. */
static void
learn_from_zombie (struct init_exit *ie)
{
  char buf[2048], path[64], link[8];
  bool permitted = false, got = false;
  int status;

  if (!zombie_may_tell (ie))
    return;
  if (read_proc (ie->pid, "stat", buf, sizeof buf))
    {
      snprintf (path, sizeof path, "/proc/%lld/exe", (long long) ie->pid);
      permitted = readlink (path, link, sizeof link) >= 0 || errno != EACCES;
      got = init_exit_zombie_status (buf, permitted, &status) == 1;
    }
  if (syscall (SYS_pidfd_send_signal, ie->pidfd, 0, NULL, 0) < 0 && errno != EPERM)
    {
      /* Whatever was read may not have been init's. */
      ie->reaped_first = errno == ESRCH;
      return;
    }
  if (got)
    {
      ie->known = true;
      ie->status = status;
    }
}

/* init's thread group has exited: its taskstats records are queued. */
static void
learn_from_taskstats (struct init_exit *ie)
{
  if (ie->ts.fd < 0)
    return;
  taskstats_watch_collect (&ie->ts);
  ie->known = taskstats_watch_status (&ie->ts, &ie->status) == 1;
  taskstats_watch_close (&ie->ts);
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
      learn_from_taskstats (ie);
      learn_from_zombie (ie);
      if (ie->known)
        news |= INIT_EXIT_STATUS_KNOWN;
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

  /* The cgroup is empty: every task of it has passed cgroup_exit, which
   * do_exit runs after taskstats_exit, so init's records are queued. */
  learn_from_taskstats (ie);
  /* Where only the zombie can tell: init, out of the cgroup, becomes one
   * at exit_notify, which follows; its pidfd turns readable then. */
  if (!ie->exited && zombie_may_tell (ie))
    {
      p[0].events = POLLIN;
      while (!ie->exited && poll (p, 2, REAP_WAIT_MS) > 0)
        {
          if (p[0].revents)
            (void) init_exit_event (ie, p[0].revents);
          else if (stop && stop (stop_fd, arg))
            return false;
        }
      p[0].events = 0;
    }
  if (!ie->follow_status || ie->known)
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

/* init is on its way out: exited, exiting (PF_EXITING in /proc/PID/stat's
 * flags), a zombie, or with a SIGKILL pending (a group kill signals every
 * member before any dies): its own pending set, in /proc/PID/stat, until
 * it takes the signal and sets PF_EXITING; the shared set, which keeps
 * SIGKILL until the reap, only in the costlier /proc/PID/status, read when
 * stat showed none of these (measured on 6.18 under TCG: 2 to 8 ms for
 * status, at the moment the marker races conmon).  The pidfd says whether
 * PID is still init: a failed signal 0 means init was reaped, gone too.
 * A group kill that skipped init (oom_score_adj -1000) leaves none of
 * these. */
#define PF_EXITING_FLAG 0x4u
#define SIGKILL_BIT (1ULL << (SIGKILL - 1))
bool
init_exit_going (const struct init_exit *ie)
{
  int64_t pid = ie->pid;
  char buf[2048];
  unsigned long long pnd = 0, shd = 0;
  unsigned flags = 0;
  char state = 0;
  const char *p;
  bool going = false;

  if (ie->exited)
    return true;
  if (pid <= 0 || ie->pidfd < 0)
    return false;
  /* Fields after the comm, which may hold anything up to its last ')':
   * state (3), flags (9), signal (31). */
  if (read_proc (pid, "stat", buf, sizeof buf) && (p = strrchr (buf, ')')) != NULL
      && sscanf (p + 1,
                 " %c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %*u %*d %*u %*u "
                 "%*u %*u %*u %*u %llu",
                 &state, &flags, &pnd) == 3)
    going = state == 'Z' || state == 'X' || (flags & PF_EXITING_FLAG) || (pnd & SIGKILL_BIT);
  if (!going && read_proc (pid, "status", buf, sizeof buf) && (p = strstr (buf, "\nShdPnd:")) != NULL
      && sscanf (p + 8, "%llx", &shd) == 1)
    going = shd & SIGKILL_BIT;
  if (syscall (SYS_pidfd_send_signal, ie->pidfd, 0, NULL, 0) < 0)
    return errno == ESRCH;
  return going;
}
