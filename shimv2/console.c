/* SPDX-License-Identifier: Apache-2.0 */
/* A process's terminal (see console.h). */
#include "shimv2/console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

void
console_init (struct console *c)
{
  memset (c, 0, sizeof *c);
  c->master = c->in = c->out = -1;
}

int
console_socket_open (const char *dir, char **path, int *fd, shim_error_t *err)
{
  /* One shim serves one container: its pid and a count make the name
   * unique, and short enough for sun_path whatever the ids. */
  static unsigned int count;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  cleanup_close int s = -1;
  cleanup_free char *p = NULL;

  *path = NULL;
  *fd = -1;
  if (asprintf (&p, "%s/pty-%d-%u.sock", dir, (int) getpid (), count++) < 0)
    return shim_error_errno (err, "console socket: asprintf");
  if (strlen (p) >= sizeof sa.sun_path)
    return shim_error_plain (err, ENAMETOOLONG, "console socket %s: path too long", p);
  memcpy (sa.sun_path, p, strlen (p) + 1);
  s = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s < 0)
    return shim_error_errno (err, "console socket: socket");
  /* One left by a shim that died with the same pid. */
  if (unlink (p) < 0 && errno != ENOENT)
    return shim_error_errno (err, "console socket: unlink %s", p);
  if (bind (s, (struct sockaddr *) &sa, sizeof sa) < 0)
    return shim_error_errno (err, "console socket: bind %s", p);
  if (listen (s, 1) < 0)
    {
      shim_error_errno (err, "console socket: listen %s", p);
      unlink (p);
      return -1;
    }
  *path = p;
  p = NULL;
  *fd = steal_fd (&s);
  return 0;
}

void
console_socket_close (char **path, int *fd)
{
  if (*path && unlink (*path) < 0 && errno != ENOENT)
    log_msg (LOG_WARNING, "unlink %s: %m", *path);
  free (*path);
  *path = NULL;
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

int
console_receive (int lfd, int *master, shim_error_t *err)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  char data[4096];
  struct iovec iov = { .iov_base = data, .iov_len = sizeof data };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  cleanup_close int conn = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  struct cmsghdr *cm;
  ssize_t n;

  *master = -1;
  if (conn < 0)
    return shim_error_errno (err, "terminal: the runtime did not connect to the console socket");
  do
    n = recvmsg (conn, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return shim_error_errno (err, "terminal: recvmsg on the console socket");
  cm = CMSG_FIRSTHDR (&mh);
  if (cm == NULL || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS
      || cm->cmsg_len != CMSG_LEN (sizeof (int)))
    return shim_error_plain (err, EPROTO, "terminal: the console socket's message carries no fd");
  memcpy (master, CMSG_DATA (cm), sizeof (int));
  return 0;
}

/* FD made non-blocking: the loop never waits on one side. */
static int
set_nonblock (int fd, const char *what, shim_error_t *err)
{
  int fl = fcntl (fd, F_GETFL);
  if (fl < 0 || fcntl (fd, F_SETFL, fl | O_NONBLOCK) < 0)
    return shim_error_errno (err, "terminal: make %s non-blocking", what);
  return 0;
}

int
console_start (struct console *c, int master, const char *stdin_path, const char *stdout_path,
               shim_error_t *err)
{
  console_init (c);
  c->master = master;
  if (set_nonblock (master, "the pty master", err) < 0)
    goto fail;
  /* Read end of stdin: the shim's own writer on the FIFO (spawn.h) keeps
   * it from reading an end of file before CloseIO. */
  if (stdin_path && *stdin_path)
    {
      c->in = open (stdin_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (c->in < 0)
        {
          shim_error_errno (err, "terminal: open the stdin FIFO %s", stdin_path);
          goto fail;
        }
    }
  /* Read-write, as runc's shim holds a reader too: the open never waits
   * for containerd's reader, and a write never fails on its absence. */
  c->out = open (stdout_path && *stdout_path ? stdout_path : "/dev/null", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (c->out < 0)
    {
      shim_error_errno (err, "terminal: open the stdout FIFO %s", stdout_path);
      goto fail;
    }
  return 0;
fail:
  console_close (c);
  return -1;
}

int
console_attach (struct console *c, char **path, int *lfd, const char *stdin_path, const char *stdout_path,
                shim_error_t *err)
{
  int master = -1, r;

  r = console_receive (*lfd, &master, err);
  if (r == 0)
    r = console_start (c, master, stdin_path, stdout_path, err);
  console_socket_close (path, lfd);
  return r;
}

bool
console_active (const struct console *c)
{
  return c->master >= 0 && !c->drained;
}

void
console_pollfds (const struct console *c, struct pollfd *p)
{
  short ev = 0;

  if (c->master >= 0 && !c->master_eof && c->to_out_len == 0)
    ev |= POLLIN;
  if (c->master >= 0 && c->to_master_len > 0)
    ev |= POLLOUT;
  p[0] = (struct pollfd){ .fd = ev ? c->master : -1, .events = ev };
  p[1] = (struct pollfd){ .fd = c->in >= 0 && c->to_master_len == 0 ? c->in : -1, .events = POLLIN };
  p[2] = (struct pollfd){ .fd = c->out >= 0 && c->to_out_len > 0 ? c->out : -1, .events = POLLOUT };
}

/* Write what BUF holds from *OFF (*LEN bytes) to FD, as much as it takes
 * now: 0 (all or some written, or it would block), -1 on another error
 * (the buffer then dropped). */
static int
flush (int fd, const char *buf, size_t *off, size_t *len)
{
  while (*len > 0)
    {
      ssize_t n = write (fd, buf + *off, *len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return 0;
      if (n <= 0)
        {
          *off = *len = 0;
          return -1;
        }
      *off += (size_t) n;
      *len -= (size_t) n;
    }
  *off = 0;
  return 0;
}

/* The master's output into the buffer, then out: false when there is
 * nothing more to read now (EAGAIN) or ever (EIO, every slave closed). */
static bool
read_master (struct console *c)
{
  ssize_t n;

  do
    n = read (c->master, c->to_out, sizeof c->to_out);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN)
    return false;
  if (n <= 0)
    {
      c->master_eof = true;
      return false;
    }
  if (c->out < 0)
    return true;
  c->to_out_off = 0;
  c->to_out_len = (size_t) n;
  if (flush (c->out, c->to_out, &c->to_out_off, &c->to_out_len) < 0)
    {
      log_msg (LOG_WARNING, "terminal: write to the stdout FIFO: %m; the output is dropped from now");
      close (c->out);
      c->out = -1;
    }
  return true;
}

static void
to_master (struct console *c)
{
  /* EIO: no slave left to read it; the input is dropped. */
  if (flush (c->master, c->to_master, &c->to_master_off, &c->to_master_len) < 0 && errno != EIO)
    log_msg (LOG_WARNING, "terminal: write to the pty master: %m");
}

static void
read_stdin (struct console *c)
{
  ssize_t n;

  do
    n = read (c->in, c->to_master, sizeof c->to_master);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN)
    return;
  if (n <= 0)
    {
      /* Its end (CloseIO, then containerd's writer gone): as runc's shim,
       * the copy to the terminal ends; its output goes on. */
      if (n < 0)
        log_msg (LOG_WARNING, "terminal: read the stdin FIFO: %m");
      close (c->in);
      c->in = -1;
      return;
    }
  c->to_master_off = 0;
  c->to_master_len = (size_t) n;
  to_master (c);
}

void
console_polled (struct console *c, const struct pollfd *p)
{
  if (p[0].fd >= 0 && p[0].fd == c->master)
    {
      if ((p[0].events & POLLOUT) && p[0].revents)
        to_master (c);
      if ((p[0].events & POLLIN) && p[0].revents)
        read_master (c);
    }
  if (p[1].fd >= 0 && p[1].fd == c->in && p[1].revents)
    read_stdin (c);
  if (p[2].fd >= 0 && p[2].fd == c->out && p[2].revents
      && flush (c->out, c->to_out, &c->to_out_off, &c->to_out_len) < 0)
    {
      log_msg (LOG_WARNING, "terminal: write to the stdout FIFO: %m; the output is dropped from now");
      close (c->out);
      c->out = -1;
    }
}

void
console_drain (struct console *c, int timeout_ms)
{
  long long deadline = util_monotonic_ms () + timeout_ms;

  if (!console_active (c))
    return;
  while (util_monotonic_ms () < deadline)
    {
      if (c->out >= 0 && c->to_out_len > 0)
        {
          struct pollfd p = { .fd = c->out, .events = POLLOUT };
          if (util_poll_until (&p, 1, deadline) <= 0)
            {
              log_msg (LOG_WARNING, "terminal: the stdout FIFO took no output for %d ms; the rest is dropped",
                       timeout_ms);
              break;
            }
          if (flush (c->out, c->to_out, &c->to_out_off, &c->to_out_len) < 0)
            break;
          continue;
        }
      /* A read finds the kernel's queued output too (the tty layer
       * flushes it first): EAGAIN means there is no more. */
      if (c->master_eof || !read_master (c))
        break;
    }
  if (c->in >= 0)
    close (c->in);
  if (c->out >= 0)
    close (c->out);
  c->in = c->out = -1;
  c->to_master_len = c->to_out_len = 0;
  c->drained = true;
}

int
console_resize (const struct console *c, uint32_t width, uint32_t height, shim_error_t *err)
{
  struct winsize ws = { .ws_row = (unsigned short) height, .ws_col = (unsigned short) width };

  if (c->master < 0)
    return shim_error_plain (err, ENOTTY, "no terminal: the process has none");
  if (ioctl (c->master, TIOCSWINSZ, &ws) < 0)
    return shim_error_errno (err, "TIOCSWINSZ %ux%u on the pty master", width, height);
  return 0;
}

void
console_close (struct console *c)
{
  if (c->master >= 0)
    close (c->master);
  if (c->in >= 0)
    close (c->in);
  if (c->out >= 0)
    close (c->out);
  c->master = c->in = c->out = -1;
  c->to_master_len = c->to_out_len = 0;
  c->drained = false;
}
