/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel log read for one container (kmsg_reader.h): the records
 * parsed by verdict/kmsg.c, joined here.  The order is mm/oom_kill.c's: a
 * summary, then its victim record; for a group kill the group record
 * (mm/memcontrol.c's mem_cgroup_print_oom_group), then one victim record
 * per member, without summaries. */
#include "evidence/kmsg_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/util.h"

/* A record is at most 1 KiB of text on 6.x (PRINTKRB_RECORD_MAX), each
 * byte at most 4 once escaped; 8 KiB was CONSOLE_EXT_LOG_MAX before. */
#define KMSG_BUF_SIZE 8192
/* Records read by one collect at most: a flood cannot keep it reading
 * forever (the fd stays readable, the caller comes back). */
#define KMSG_COLLECT_MAX 65536
/* A group kill's member records follow its group record at once, one
 * __oom_kill_process each (a slow serial console can space them by tens
 * of ms); a victim record without a summary later than this after the
 * previous one is not taken for a member: it counts as unattributed. */
#define KMSG_GROUP_GAP_USEC 1000000

/* Keep K in EV: the first KMSG_MAX_KILLS. */
static void
keep (struct kmsg_evidence *ev, const struct kmsg_oom_kill *k)
{
  if (ev->n < KMSG_MAX_KILLS)
    ev->kills[ev->n++] = *k;
  else
    ev->truncated = true;
}

static bool
concerns (const struct kmsg_reader *r, const struct kmsg_oom_kill *k)
{
  return (k->task_memcg[0] && kmsg_path_within (k->task_memcg, r->cgroup))
         || (k->oom_memcg[0] && kmsg_path_within (k->oom_memcg, r->cgroup));
}

/* A summary whose victim record never came (the victim was already
 * exiting, or a thread other than the one summarised printed it): kept as
 * it is, have_victim false. */
static void
flush_pending (struct kmsg_reader *r, struct kmsg_evidence *ev)
{
  if (r->have_pending && concerns (r, &r->pending))
    keep (ev, &r->pending);
  r->have_pending = false;
}

static void
end_group (struct kmsg_reader *r)
{
  r->in_group = false;
  r->last_pid = 0;
  r->last_oom_memcg[0] = '\0';
}

/* A victim record with no summary before it. */
static void
victim_alone (struct kmsg_reader *r, struct kmsg_oom_kill *k, uint64_t ts,
              struct kmsg_evidence *ev)
{
  /* The members' records follow the group record one after the other
   * (oom_kill_memcg_member prints nothing else): a record of any kind in
   * between, or a gap in time, and this victim may be another OOM's whose
   * summary was rate-limited away. */
  if (r->in_group && k->seq == r->group_seq + 1 && ts >= r->group_ts_usec
      && ts - r->group_ts_usec <= KMSG_GROUP_GAP_USEC)
    {
      r->group_ts_usec = ts;
      r->group_seq = k->seq;
      /* The kill that set the group off is listed again among its members,
       * and counted again in oom_kill. */
      if (k->pid == r->group_pid)
        {
          if (kmsg_path_within (r->group, r->cgroup))
            ev->relisted++;
          return;
        }
      k->group_member = true;
      snprintf (k->oom_group, sizeof k->oom_group, "%s", r->group);
      snprintf (k->oom_memcg, sizeof k->oom_memcg, "%s", r->group_oom_memcg);
      if (kmsg_path_within (r->group, r->cgroup))
        keep (ev, k);
      else if (kmsg_path_within (r->cgroup, r->group))
        /* A group above the container: this member may be one of its
         * processes or a sibling's. */
        ev->unattributed++;
      return;
    }
  end_group (r);
  /* A group record may follow: its repeat of this kill is no member. */
  r->last_pid = k->pid;
  /* Its summary was rate-limited away: whose it was is unknown. */
  ev->unattributed++;
}

void
kmsg_reader_feed (struct kmsg_reader *r, const char *rec, size_t len, struct kmsg_evidence *ev)
{
  struct kmsg_oom_kill k;
  uint64_t ts;

  switch (kmsg_parse (rec, len, &k, &ts))
    {
    case KMSG_K_OTHER:
      return;
    case KMSG_K_SUMMARY:
      flush_pending (r, ev);
      end_group (r);
      r->pending = k;
      r->have_pending = true;
      return;
    case KMSG_K_BAD_SUMMARY: /* its victim record then comes alone: unattributed */
    case KMSG_K_BAD_GROUP:   /* its members then come alone: unattributed */
      flush_pending (r, ev);
      end_group (r);
      return;
    case KMSG_K_VICTIM:
      if (r->have_pending && r->pending.pid == k.pid)
        {
          struct kmsg_oom_kill *p = &r->pending;
          r->have_pending = false;
          end_group (r);
          p->have_victim = true;
          /* The victim record's comm is unambiguous; the summary's is
           * the leftmost split. */
          memcpy (p->comm, k.comm, sizeof p->comm);
          p->total_vm_kb = k.total_vm_kb;
          p->anon_rss_kb = k.anon_rss_kb;
          p->file_rss_kb = k.file_rss_kb;
          p->shmem_rss_kb = k.shmem_rss_kb;
          r->last_pid = p->pid;
          memcpy (r->last_oom_memcg, p->oom_memcg, sizeof r->last_oom_memcg);
          if (concerns (r, p))
            keep (ev, p);
          else if (!p->task_memcg[0] && !p->oom_memcg[0])
            ev->unattributed++; /* a kernel without memcg: no path to match */
          return;
        }
      flush_pending (r, ev);
      victim_alone (r, &k, ts, ev);
      return;
    case KMSG_K_BAD_VICTIM:
      flush_pending (r, ev);
      end_group (r);
      ev->unattributed++;
      return;
    case KMSG_K_GROUP:
      flush_pending (r, ev);
      r->in_group = true;
      r->group_pid = r->last_pid;
      r->group_ts_usec = ts;
      r->group_seq = k.seq;
      memcpy (r->group, k.oom_group, sizeof r->group);
      memcpy (r->group_oom_memcg, r->last_oom_memcg, sizeof r->group_oom_memcg);
      r->last_pid = 0;
      r->last_oom_memcg[0] = '\0';
      /* The kill that set it off, when kept, is the last one. */
      if (ev->n > 0 && r->group_pid && ev->kills[ev->n - 1].pid == r->group_pid)
        memcpy (ev->kills[ev->n - 1].oom_group, r->group, sizeof r->group);
      return;
    }
}

void
kmsg_reader_open (struct kmsg_reader *r, const char *cgroup, struct kmsg_evidence *ev)
{
  struct stat st;
  int fd;

  memset (r, 0, sizeof *r);
  r->fd = -1;
  memset (ev, 0, sizeof *ev);
  ev->access = KMSG_DENIED;
  /* A path that does not fit would be cut into another cgroup's. */
  if (cgroup == NULL || cgroup[0] != '/' || strlen (cgroup) >= sizeof r->cgroup)
    {
      ev->error = cgroup && cgroup[0] == '/' ? ENAMETOOLONG : EINVAL;
      return;
    }
  memcpy (r->cgroup, cgroup, strlen (cgroup) + 1);
  memcpy (ev->cgroup, cgroup, strlen (cgroup) + 1);
  /* The kernel prints paths from the hierarchy's root; a reader in
   * another cgroup namespace knows the container's path only relative to
   * its own root.  No /proc/self/ns/cgroup: a kernel without cgroup
   * namespaces, all in the initial one. */
  errno = 0;
  if (util_ns_initial ("cgroup") != 1)
    {
      ev->access = KMSG_OTHER_NS;
      ev->error = errno;
      return;
    }
  fd = open ("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  /* Only the kernel's own device (char 1:11) is the witness. */
  if (fd >= 0 && (fstat (fd, &st) < 0 || !S_ISCHR (st.st_mode) || st.st_rdev != makedev (1, 11)))
    errno = ENODEV;
  else if (fd >= 0 && lseek (fd, 0, SEEK_END) >= 0) /* records from now on */
    {
      r->fd = fd;
      ev->access = KMSG_READ;
      return;
    }
  ev->error = errno;
  if (fd >= 0)
    close (fd);
}

int
kmsg_reader_fd (const struct kmsg_reader *r)
{
  return r->fd;
}

/* Whether everything available was read (EAGAIN, or no reader). */
static bool
collect (struct kmsg_reader *r, struct kmsg_evidence *ev, unsigned max)
{
  char buf[KMSG_BUF_SIZE];

  if (r->fd < 0)
    return true;
  for (unsigned i = 0; i < max; i++)
    {
      ssize_t n = read (r->fd, buf, sizeof buf);
      int e = errno;
      if (n > 0)
        {
          kmsg_reader_feed (r, buf, (size_t) n, ev);
          continue;
        }
      if (n < 0 && e == EINTR)
        continue;
      if (n < 0 && e == EAGAIN)
        return true;
      if (n == 0 || (e != EPIPE && e != EINVAL))
        return false; /* give up for now */
      /* EPIPE: overwritten before they were read, the next read gives the
       * oldest record left.  EINVAL: a record larger than the buffer,
       * read(2) would return it again forever and /dev/kmsg seeks only to
       * its ends.  A summary or group cut from its victims cannot be
       * trusted across the gap. */
      ev->lost = true;
      flush_pending (r, ev);
      end_group (r);
      if (e == EINVAL && lseek (r->fd, 0, SEEK_END) < 0)
        return false;
    }
  return false;
}

static unsigned
max_records (const struct kmsg_reader *r)
{
  return r->max_records ? r->max_records : KMSG_COLLECT_MAX;
}

void
kmsg_reader_collect (struct kmsg_reader *r, struct kmsg_evidence *ev)
{
  collect (r, ev, max_records (r));
}

void
kmsg_reader_collect_some (struct kmsg_reader *r, struct kmsg_evidence *ev, unsigned max)
{
  collect (r, ev, max && max < max_records (r) ? max : max_records (r));
}

void
kmsg_reader_collect_end (struct kmsg_reader *r, struct kmsg_evidence *ev)
{
  /* The last read: what it leaves unread is never read, and a kill may be
   * among it. */
  if (!collect (r, ev, max_records (r)))
    {
      ev->lost = true;
      flush_pending (r, ev);
      end_group (r);
    }
}

void
kmsg_reader_close (struct kmsg_reader *r)
{
  if (r->fd >= 0)
    close (r->fd);
  r->fd = -1;
}
