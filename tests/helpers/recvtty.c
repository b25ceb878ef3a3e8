/* SPDX-License-Identifier: Apache-2.0 */
/* recvtty SOCKET [INPUT]: the other end of `--console-socket`, for the
 * terminal tests.  Listens on the unix socket SOCKET (created, then removed
 * once the connection is in), takes the one fd the runtime passes with
 * SCM_RIGHTS (the pty master), optionally writes INPUT to it, and copies
 * what the master reads to stdout until EOF (EIO: every slave closed).
 * Prints "recvtty: ..." on stderr and exits 1 on any failure; gives up
 * after 30 s without a connection. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int
fail (const char *what)
{
  fprintf (stderr, "recvtty: %s: %s\n", what, strerror (errno));
  return 1;
}

static int
write_all (int fd, const char *p, size_t n)
{
  while (n > 0)
    {
      ssize_t w = write (fd, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return -1;
      p += w;
      n -= (size_t) w;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  char data[4096], buf[4096];
  struct iovec iov = { .iov_base = data, .iov_len = sizeof (data) };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof (u.buf) };
  struct cmsghdr *c;
  struct pollfd p;
  int ls, conn, master = -1;
  ssize_t r;

  if (argc < 2 || argc > 3)
    {
      fprintf (stderr, "usage: recvtty SOCKET [INPUT]\n");
      return 2;
    }
  if (strlen (argv[1]) >= sizeof (sa.sun_path))
    {
      fprintf (stderr, "recvtty: %s: path too long\n", argv[1]);
      return 1;
    }
  strcpy (sa.sun_path, argv[1]);
  ls = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (ls < 0)
    return fail ("socket");
  if (bind (ls, (struct sockaddr *) &sa, sizeof (sa)) < 0)
    return fail ("bind");
  if (listen (ls, 1) < 0)
    return fail ("listen");
  p = (struct pollfd){ .fd = ls, .events = POLLIN };
  if (poll (&p, 1, 30000) != 1)
    {
      errno = ETIMEDOUT;
      return fail ("wait for the runtime");
    }
  conn = accept4 (ls, NULL, NULL, SOCK_CLOEXEC);
  if (conn < 0)
    return fail ("accept");
  unlink (argv[1]);
  close (ls);
  do
    r = recvmsg (conn, &mh, MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return fail ("recvmsg");
  for (c = CMSG_FIRSTHDR (&mh); c; c = CMSG_NXTHDR (&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN (sizeof (int)))
      memcpy (&master, CMSG_DATA (c), sizeof (int));
  if (master < 0)
    {
      fprintf (stderr, "recvtty: the runtime sent no fd (%zd bytes)\n", r);
      return 1;
    }
  close (conn);
  if (argc == 3 && write_all (master, argv[2], strlen (argv[2])) < 0)
    return fail ("write to the pty master");
  for (;;)
    {
      r = read (master, buf, sizeof (buf));
      if (r < 0 && errno == EINTR)
        continue;
      /* EIO: the last slave fd was closed, the master's EOF. */
      if (r == 0 || (r < 0 && errno == EIO))
        break;
      if (r < 0)
        return fail ("read from the pty master");
      if (write_all (1, buf, (size_t) r) < 0)
        return fail ("write to stdout");
    }
  return 0;
}
