/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/container_ref_internal.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"

int
container_ref_open (const char *root, const char *id, bool exclusive, struct container_ref *r,
                    shim_error_t *err)
{
  shim_error_t tmp = NULL;

  *r = (struct container_ref) CONTAINER_REF_INIT;
  r->dirfd = state_open (root, id, exclusive, err);
  if (r->dirfd < 0)
    return -1;
  /* Looked at in a local error first: the caller's may not be empty. */
  if (state_read (r->dirfd, &r->st, &tmp) < 0)
    {
      /* The dir without state.json: a create still on its way (or one that
       * died half-way; delete --force clears it). */
      if (tmp->status != ENOENT)
        return shim_error_take (err, &tmp);
      shim_error_release (&tmp);
      r->st.id = strdup (id);
      if (r->st.id == NULL)
        return shim_error_errno (err, "container `%s`", id);
      r->status = STATUS_CREATING;
      return 0;
    }
  if (cgroup_open_paths (r->st.cgroup_path, r->st.cgroup_v1_paths, r->st.cgroup_created_depth, &r->cg, err) < 0)
    return -1;
  r->status = state_status (r->dirfd, &r->cg, &r->st);
  return 0;
}

void
container_ref_release (struct container_ref *r)
{
  if (r->dirfd >= 0)
    close (r->dirfd);
  r->dirfd = -1;
  state_free (&r->st);
  cgroup_release (&r->cg);
}

int
container_ref_need (const struct container_ref *r, const char *what, unsigned allowed, shim_error_t *err)
{
  if (allowed & (1u << r->status))
    return 0;
  return shim_error_plain (err, EINVAL, "cannot %s container `%s`: it is %s", what, r->st.id,
                           state_status_name (r->status));
}

/* A pidfd for init that is certainly init: the start time is checked after
 * the pidfd pins the process, so a reused pid is never signalled. */
static int
open_init (const struct shim_state *st, shim_error_t *err)
{
  cleanup_close int fd = (int) syscall (SYS_pidfd_open, st->pid, 0);
  uint64_t start;
  bool zombie;

  if (fd < 0)
    return shim_error_errno (err, "container `%s`: pidfd_open(%d)", st->id, (int) st->pid);
  if (state_proc_start_time (st->pid, &start, &zombie, err) < 0)
    return -1;
  if (start != st->pid_start)
    return shim_error_plain (err, ESRCH, "container `%s` is not running", st->id);
  return steal_fd (&fd);
}

/* Init has exited (a zombie, or reaped): its pidfd polls readable. */
static bool
init_exited (int pidfd)
{
  struct pollfd p = { .fd = pidfd, .events = POLLIN };

  return poll (&p, 1, 0) != 0;
}

int
container_ref_signal (struct container_ref *r, int sig, bool all, shim_error_t *err)
{
  shim_error_t tmp = NULL;
  cleanup_close int pidfd = open_init (&r->st, all ? &tmp : err);
  bool live;

  /* With --all what is left in the cgroup is signalled even when init is
   * gone; without it, a dead init is "not running" (runc). */
  shim_error_release (&tmp);
  if (pidfd < 0 && !all)
    return -1;
  live = pidfd >= 0 && !init_exited (pidfd);
  if (!all && !live)
    return shim_error_plain (err, ESRCH, "container `%s` is not running", r->st.id);
  /* Recorded before it is sent, under the state dir's exclusive lock, and
   * taken back if it was not delivered: a signal that cannot be recorded
   * (a full --root) is not sent, or the verdict would call the runtime's
   * own kill one "from outside"; `shim run` reads the record under a shared
   * lock, so it never sees one in between.  Only a live init's: a signal
   * to an init that had already exited (an engine's cleanup `kill --all
   * KILL` after an OOM kill) must not become the cause of its death. */
  uint64_t before = 0;
  bool recorded = false;
  if (live)
    {
      if (state_signals_read (r->dirfd, false, &before) < 0
          || state_record_signal (r->dirfd, sig, err) < 0)
        return shim_error_prefix (err, "container `%s`: signal %d not sent: it could not be recorded",
                                  r->st.id, sig);
      recorded = true;
    }
  if ((all && cgroup_signal_all (&r->cg, sig, err) < 0)
      || (!all && syscall (SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0
          && shim_error_errno (err, "container `%s`: signal %d", r->st.id, sig) < 0))
    {
      shim_error_t undo = NULL;
      if (recorded && state_signals_write (r->dirfd, before, &undo) < 0)
        shim_error_release (&undo);
      return -1;
    }
  return 0;
}

int
container_ref_init_pidfd (const struct container_ref *r, shim_error_t *err)
{
  return open_init (&r->st, err);
}

/* How long delete --force waits for a SIGKILLed init to go. */
#define WAIT_GONE_MS 5000

/* A pidfd polls readable when init exits.  Bounded: a SIGKILLed init exits
 * in microseconds unless it is stuck in the kernel (D state), and then
 * delete must fail rather than hang. */
int
container_ref_wait_gone (const struct container_ref *r, shim_error_t *err)
{
  shim_error_t tmp = NULL;
  cleanup_close int fd = open_init (&r->st, &tmp);
  struct pollfd p = { .fd = fd, .events = POLLIN };
  int n;

  if (fd < 0)
    {
      shim_error_release (&tmp);
      return 0;
    }
  n = util_poll_until (&p, 1, util_monotonic_ms () + WAIT_GONE_MS);
  if (n < 0)
    return shim_error_errno (err, "wait for init of `%s`", r->st.id);
  if (n == 0)
    return shim_error_plain (err, ETIMEDOUT, "container `%s`: init (pid %d) did not exit within %d s of SIGKILL",
                             r->st.id, (int) r->st.pid, WAIT_GONE_MS / 1000);
  return 0;
}
