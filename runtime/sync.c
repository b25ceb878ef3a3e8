/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/sync_internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/util.h"
#include "runtime/state.h"

int
sync_send (int fd, int type, int status, const char *text, int pass_fd)
{
  struct sync_msg m = { .type = type, .status = status };
  size_t tlen = text ? strlen (text) : 0;
  struct iovec iov = { .iov_base = &m, .iov_len = offsetof (struct sync_msg, text) + tlen + 1 };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  ssize_t r;

  if (tlen >= sizeof (m.text))
    tlen = sizeof (m.text) - 1;
  memcpy (m.text, text ? text : "", tlen);
  m.text[tlen] = '\0';
  iov.iov_len = offsetof (struct sync_msg, text) + tlen + 1;
  if (pass_fd >= 0)
    {
      struct cmsghdr *c;
      mh.msg_control = u.buf;
      mh.msg_controllen = sizeof (u.buf);
      c = CMSG_FIRSTHDR (&mh);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (sizeof (int));
      memcpy (CMSG_DATA (c), &pass_fd, sizeof (int));
    }
  do
    r = sendmsg (fd, &mh, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  return r < 0 ? -1 : 0;
}

ssize_t
sync_recv (int fd, struct sync_msg *m, int *fd_out)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct iovec iov = { .iov_base = m, .iov_len = sizeof (*m) };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof (u.buf) };
  struct cmsghdr *c;
  ssize_t r;

  do
    r = recvmsg (fd, &mh, MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r <= 0)
    return r;
  if ((size_t) r < offsetof (struct sync_msg, text) + 1)
    {
      errno = EPROTO;
      return -1;
    }
  m->text[sizeof (m->text) - 1] = '\0';
  for (c = CMSG_FIRSTHDR (&mh); c; c = CMSG_NXTHDR (&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && fd_out)
      memcpy (fd_out, CMSG_DATA (c), sizeof (int));
  return r;
}

void
sync_report_error (int fd, const shim_error_t *err)
{
  sync_send (fd, SYNC_ERROR, *err ? (*err)->status : 0, *err ? (*err)->msg : "failed", -1);
}

/* The child's error, as the runtime's own. */
static int
child_error (const struct sync_msg *m, shim_error_t *err)
{
  /* Its message is complete; its errno is recorded, not appended. */
  return shim_error_plain (err, m->status, "%s", m->text);
}

/* Until FD has a message, or a signal other than SIGWINCH arrives on
 * SIGFD (-1: none): then its number. */
static int
wait_readable (int fd, int sigfd)
{
  for (;;)
    {
      struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = sigfd, .events = POLLIN } };
      struct signalfd_siginfo si;
      if (poll (p, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return 0;
        }
      if (p[0].revents)
        return 0;
      if ((p[1].revents & POLLIN) && read (sigfd, &si, sizeof (si)) == sizeof (si) && si.ssi_signo != SIGWINCH)
        return (int) si.ssi_signo;
    }
}

int
sync_converse (int fd, int sigfd, pid_t pid, bool stop_at_ready,
               int (*create_runtime) (pid_t pid, void *opaque, char **state_json, shim_error_t *err),
               void *opaque, int *pty_master, shim_error_t *err)
{
  static struct sync_msg m;
  for (;;)
    {
      int passed = -1, sig = sigfd >= 0 ? wait_readable (fd, sigfd) : 0;
      ssize_t r;
      if (sig > 0)
        return shim_error_plain (err, EINTR, "signal %d (%s) before the process started: it was not run", sig,
                                 strsignal (sig));
      r = sync_recv (fd, &m, &passed);
      if (r < 0)
        return shim_error_errno (err, "read from the container's init");
      if (r == 0)
        return 0;
      switch (m.type)
        {
        case SYNC_ERROR:
          return child_error (&m, err);
        case SYNC_CREATE_RUNTIME:
          {
            cleanup_free char *json = NULL;
            if (create_runtime (pid, opaque, &json, err) < 0)
              return -1;
            if (sync_send (fd, SYNC_GO, 0, json, -1) < 0)
              return shim_error_errno (err, "write to the container's init");
            break;
          }
        case SYNC_PTY:
          if (*pty_master >= 0)
            close (*pty_master);
          *pty_master = passed;
          break;
        case SYNC_READY:
          if (stop_at_ready)
            return 0;
          break;
        default:
          return shim_error_plain (err, EPROTO, "init sent message %d", m.type);
        }
    }
}

int
sync_wait_go (int fd, char **state_json, shim_error_t *err)
{
  static struct sync_msg m;
  ssize_t r = sync_recv (fd, &m, NULL);
  if (r < 0)
    return shim_error_errno (err, "read from the runtime");
  if (r == 0 || m.type != SYNC_GO)
    return shim_error_plain (err, ECANCELED, "the runtime gave up on the container");
  *state_json = m.text;
  return 0;
}

bool
sync_gate_needed (const struct cgroup *cg)
{
  return cg != NULL && cgroup_enter_needed (cg);
}

int
sync_enter_cgroup (int fd, bool needed, const struct cgroup *cg, pid_t pid,
                   int (*entered) (void *opaque, shim_error_t *err), void *opaque,
                   shim_error_t *err)
{
  if (!needed)
    return 0;
  if (cgroup_enter (cg, pid, err) < 0 || (entered && entered (opaque, err) < 0))
    return -1;
  if (sync_send (fd, SYNC_GO, 0, "", -1) < 0)
    return shim_error_errno (err, "write to the child");
  return 0;
}

int
sync_wait_entered (int fd, bool needed, shim_error_t *err)
{
  char *unused;

  if (!needed)
    return 0;
  return sync_wait_go (fd, &unused, err);
}

/* exec.sock in the state dir, named through the dir fd: a long --root or
 * id would not fit sun_path. */
static void
exec_sock_addr (int dirfd, struct sockaddr_un *sa)
{
  snprintf (sa->sun_path, sizeof (sa->sun_path), "/proc/self/fd/%d/%s", dirfd, STATE_EXEC_SOCK);
}

int
sync_listen_exec (int dirfd, shim_error_t *err)
{
  cleanup_close int s = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };

  if (s < 0)
    return shim_error_errno (err, "socket");
  exec_sock_addr (dirfd, &sa);
  if (bind (s, (struct sockaddr *) &sa, sizeof (sa)) < 0)
    return shim_error_errno (err, "bind `%s` in the state dir", STATE_EXEC_SOCK);
  if (listen (s, 1) < 0)
    return shim_error_errno (err, "listen on `%s`", STATE_EXEC_SOCK);
  return steal_fd (&s);
}

int
sync_wait_start (int listen_fd, int *conn, char **start_json, shim_error_t *err)
{
  cleanup_free char *json = NULL;
  ssize_t r;

  /* Blocked here between create and start.  Only `start` connects: the
   * socket is in the runtime's state dir, out of the container's view. */
  *conn = accept4 (listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (*conn < 0)
    return shim_error_errno (err, "wait for start: accept");
  /* One message: the state as `start` sees it (status "created"), for
   * the startContainer hooks. */
  do
    r = recv (*conn, NULL, 0, MSG_PEEK | MSG_TRUNC);
  while (r < 0 && errno == EINTR);
  if (r < 1 || (json = malloc ((size_t) r + 1)) == NULL)
    return shim_error_plain (err, ECANCELED, "start went away before releasing the container");
  do
    r = recv (*conn, json, (size_t) r, 0);
  while (r < 0 && errno == EINTR);
  if (r < 1)
    return shim_error_plain (err, ECANCELED, "start went away before releasing the container");
  json[r] = '\0';
  *start_json = steal_pointer (&json);
  return 0;
}

static int
release_init (int dirfd, const char *state_json, shim_error_t *err)
{
  static struct sync_msg m;
  cleanup_close int s = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  ssize_t r;

  if (s < 0)
    return shim_error_errno (err, "socket");
  exec_sock_addr (dirfd, &sa);
  if (connect (s, (struct sockaddr *) &sa, sizeof (sa)) < 0)
    return shim_error_errno (err, "connect to the container's init (%s)", STATE_EXEC_SOCK);
  if (state_json == NULL)
    state_json = "";
  if (send (s, state_json, strlen (state_json) + 1, MSG_NOSIGNAL) < 0)
    return shim_error_errno (err, "release the container's init");
  r = sync_recv (s, &m, NULL);
  if (r < 0)
    return shim_error_errno (err, "read from the container's init");
  if (r > 0 && m.type == SYNC_ERROR)
    return child_error (&m, err);
  return 0;
}

int
sync_release (int dirfd, const char *state_json, shim_error_t *err)
{
  int ret = release_init (dirfd, state_json, err);

  /* Released or dead: either way nobody waits on it any more, and its
   * absence is what says "not created". */
  if (unlinkat (dirfd, STATE_EXEC_SOCK, 0) < 0 && errno != ENOENT && ret == 0)
    return shim_error_errno (err, "remove `%s`", STATE_EXEC_SOCK);
  return ret;
}
