/* SPDX-License-Identifier: Apache-2.0 */
/* shimv2-update ADDRESS ID RESOURCES_JSON: containerd's Update
 * (containerd.task.v2.Task/Update over ttrpc) sent to the shim v2 at
 * ADDRESS (a socket path, or containerd's "unix://PATH" as in the bundle's
 * address file) for task ID, its resources an Any of type
 * types.containerd.io/opencontainers/runtime-spec/1/LinuxResources holding
 * RESOURCES_JSON, as containerd's Task.Update sends it (ctr 1.6 has no
 * `task update`).  Exit 0 when the shim answers OK; else the status code
 * and message on stderr, exit 1.  No library: the few protobuf fields are
 * written and read by hand. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define TYPE_URL "types.containerd.io/opencontainers/runtime-spec/1/LinuxResources"

struct buf
{
  uint8_t *p;
  size_t n, cap;
};

static void
put (struct buf *b, const void *d, size_t n)
{
  if (b->n + n > b->cap)
    {
      b->cap = (b->n + n) * 2 + 64;
      b->p = realloc (b->p, b->cap);
      if (b->p == NULL)
        exit (2);
    }
  memcpy (b->p + b->n, d, n);
  b->n += n;
}

static void
put_varint (struct buf *b, uint64_t v)
{
  uint8_t c;
  do
    {
      c = (uint8_t) (v & 0x7f);
      v >>= 7;
      if (v)
        c |= 0x80;
      put (b, &c, 1);
    }
  while (v);
}

/* Field NUM, length-delimited (wire type 2). */
static void
put_bytes (struct buf *b, unsigned num, const void *d, size_t n)
{
  put_varint (b, (num << 3) | 2);
  put_varint (b, n);
  put (b, d, n);
}

static int
get_varint (const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
  unsigned shift = 0;
  *v = 0;
  while (*i < n && shift < 64)
    {
      uint8_t c = p[(*i)++];
      *v |= (uint64_t) (c & 0x7f) << shift;
      if (!(c & 0x80))
        return 0;
      shift += 7;
    }
  return -1;
}

static int
read_all (int fd, uint8_t *p, size_t n)
{
  while (n > 0)
    {
      ssize_t r = read (fd, p, n);
      if (r <= 0)
        return -1;
      p += r;
      n -= (size_t) r;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  struct buf any = { 0 }, upd = { 0 }, req = { 0 };
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  const char *path;
  uint8_t hdr[10], *resp;
  uint32_t rlen;
  size_t i = 0;
  int fd;

  if (argc != 4)
    {
      fprintf (stderr, "usage: shimv2-update ADDRESS ID RESOURCES_JSON\n");
      return 2;
    }
  path = strncmp (argv[1], "unix://", 7) == 0 ? argv[1] + 7 : argv[1];
  put_bytes (&any, 1, TYPE_URL, strlen (TYPE_URL));
  put_bytes (&any, 2, argv[3], strlen (argv[3]));
  put_bytes (&upd, 1, argv[2], strlen (argv[2]));
  put_bytes (&upd, 2, any.p, any.n);
  put_bytes (&req, 1, "containerd.task.v2.Task", strlen ("containerd.task.v2.Task"));
  put_bytes (&req, 2, "Update", strlen ("Update"));
  put_bytes (&req, 3, upd.p, upd.n);
  /* ttrpc's header: length, stream id (big-endian), type 1 (request), flags. */
  hdr[0] = (uint8_t) (req.n >> 24), hdr[1] = (uint8_t) (req.n >> 16), hdr[2] = (uint8_t) (req.n >> 8),
  hdr[3] = (uint8_t) req.n;
  hdr[4] = hdr[5] = hdr[6] = 0, hdr[7] = 1, hdr[8] = 1, hdr[9] = 0;
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (strlen (path) >= sizeof sa.sun_path)
    return 2;
  strcpy (sa.sun_path, path);
  if (fd < 0 || connect (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    {
      perror ("shimv2-update: connect");
      return 2;
    }
  if (write (fd, hdr, sizeof hdr) != (ssize_t) sizeof hdr || write (fd, req.p, req.n) != (ssize_t) req.n
      || read_all (fd, hdr, sizeof hdr) < 0)
    {
      perror ("shimv2-update: the request or its answer");
      return 2;
    }
  rlen = (uint32_t) hdr[0] << 24 | (uint32_t) hdr[1] << 16 | (uint32_t) hdr[2] << 8 | hdr[3];
  resp = malloc (rlen + 1);
  if (resp == NULL || read_all (fd, resp, rlen) < 0)
    {
      perror ("shimv2-update: the answer");
      return 2;
    }
  /* ttrpc.Response: status (1) {code (1), message (2)}, payload (2). */
  while (i < rlen)
    {
      uint64_t key, l, code = 0;
      size_t end, j;
      if (get_varint (resp, rlen, &i, &key) < 0 || (key & 7) != 2 || get_varint (resp, rlen, &i, &l) < 0
          || l > rlen - i)
        {
          fprintf (stderr, "shimv2-update: an answer that is no ttrpc.Response\n");
          return 2;
        }
      end = i + l;
      if (key >> 3 != 1)
        {
          i = end;
          continue;
        }
      for (j = i; j < end;)
        {
          uint64_t k, v;
          if (get_varint (resp, end, &j, &k) < 0)
            break;
          if ((k & 7) == 0 && get_varint (resp, end, &j, &v) == 0 && k >> 3 == 1)
            code = v;
          else if ((k & 7) == 2 && get_varint (resp, end, &j, &v) == 0 && v <= end - j)
            {
              if (k >> 3 == 2)
                fprintf (stderr, "shimv2-update: %.*s\n", (int) v, (const char *) resp + j);
              j += v;
            }
          else
            break;
        }
      if (code != 0)
        {
          fprintf (stderr, "shimv2-update: status code %llu\n", (unsigned long long) code);
          return 1;
        }
      i = end;
    }
  return 0;
}
