/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel-log witness (kmsg.h): parse the OOM killer's records as
 * /dev/kmsg gives them, join each summary with its victim record, and keep
 * the kills of one cgroup.  The formats are mm/oom_kill.c's
 * (dump_oom_summary, renamed dump_oom_victim in 6.7; __oom_kill_process)
 * and mm/memcontrol.c's (mem_cgroup_print_oom_context,
 * mem_cgroup_print_oom_group), the same on 6.1, 6.12 and 6.18; the record
 * framing is kernel/printk's (info_print_ext_header, msg_add_ext_text). */
#include "verdict/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/json.h"
#include "common/util.h"

/* PROC_CGROUP_INIT_INO (include/linux/proc_ns.h, CGROUP_NS_INIT_INO in
 * uapi/linux/nsfs.h since 6.x): the initial cgroup namespace's inode. */
#define KMSG_CGROUP_INIT_INO 0xEFFFFFFBU
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
#define KMSG_PID_LIMIT 4194304 /* PID_MAX_LIMIT */
#define KMSG_NUM_LIMIT (UINT64_C (1) << 53)

enum kmsg_kind
{
  KMSG_K_OTHER = 0,
  KMSG_K_SUMMARY,
  KMSG_K_VICTIM,
  KMSG_K_GROUP,
  /* Kernel records that look like one of the three but do not parse (a
   * path too long for KMSG_PATH_MAX, a summary split in two records). */
  KMSG_K_BAD_SUMMARY,
  KMSG_K_BAD_VICTIM,
  KMSG_K_BAD_GROUP,
};

/* A piece of the record: never NUL-terminated, never read past n. */
struct kmsg_span
{
  const char *p;
  size_t n;
};

static bool
span_take (struct kmsg_span *s, const char *lit)
{
  size_t l = strlen (lit);

  if (s->n < l || memcmp (s->p, lit, l) != 0)
    return false;
  s->p += l;
  s->n -= l;
  return true;
}

static bool
span_ends (struct kmsg_span s, const char *lit)
{
  size_t l = strlen (lit);
  return s.n >= l && memcmp (s.p + s.n - l, lit, l) == 0;
}

/* The offset of the first (LAST: the last) LIT in S at or after FROM, or -1. */
static ssize_t
span_find (struct kmsg_span s, const char *lit, size_t from, bool last)
{
  size_t l = strlen (lit), i;
  ssize_t found = -1;

  for (i = from; i + l <= s.n; i++)
    if (memcmp (s.p + i, lit, l) == 0)
      {
        found = (ssize_t) i;
        if (!last)
          break;
      }
  return found;
}

static struct kmsg_span
span_sub (struct kmsg_span s, size_t from, size_t to)
{
  return (struct kmsg_span){ s.p + from, to - from };
}

/* Leading decimal digits of S into *V (at least one, below
 * KMSG_NUM_LIMIT: absurd numbers are malformed records). */
static bool
span_u64 (struct kmsg_span *s, uint64_t *v)
{
  size_t i = 0;

  *v = 0;
  while (i < s->n && s->p[i] >= '0' && s->p[i] <= '9')
    {
      *v = *v * 10 + (uint64_t) (s->p[i] - '0');
      if (*v >= KMSG_NUM_LIMIT)
        return false;
      i++;
    }
  s->p += i;
  s->n -= i;
  return i > 0;
}

/* All of S as a (signed) number. */
static bool
span_whole_i64 (struct kmsg_span s, int64_t *v)
{
  bool neg = span_take (&s, "-");
  uint64_t u;

  if (!span_u64 (&s, &u) || s.n != 0)
    return false;
  *v = neg ? -(int64_t) u : (int64_t) u;
  return true;
}

/* The kernel writes %02x: lower case. */
static int
hexval (char c)
{
  static const char hex[] = "0123456789abcdef";
  const char *p = c ? strchr (hex, c) : NULL;
  return p ? (int) (p - hex) : -1;
}

/* Undo msg_add_ext_text's escaping (\xNN for bytes below ' ', from 127 on
 * and '\\') into OUT.  False when the result does not fit SIZE (never
 * truncated: a cut path could name another cgroup), holds a NUL or S is
 * not something the kernel writes. */
static bool
kmsg_unescape (struct kmsg_span s, char *out, size_t size)
{
  size_t i, o = 0;

  for (i = 0; i < s.n; i++)
    {
      int c = (unsigned char) s.p[i];
      if (c == '\\')
        {
          int hi, lo;
          if (s.n - i < 4 || s.p[i + 1] != 'x' || (hi = hexval (s.p[i + 2])) < 0
              || (lo = hexval (s.p[i + 3])) < 0)
            return false;
          c = hi << 4 | lo;
          i += 3;
        }
      if (c == 0 || o + 1 >= size)
        return false;
      out[o++] = (char) c;
    }
  memset (out + o, 0, size - o); /* what a failed try left behind too */
  return true;
}

void
kmsg_escape (const char *s, char *out, size_t size)
{
  size_t o = 0;

  for (; *s; s++)
    {
      unsigned char c = (unsigned char) *s;
      bool esc = c < ' ' || c >= 127 || c == '\\';
      if (o + (esc ? 4 : 1) >= size)
        break;
      if (esc)
        o += (size_t) snprintf (out + o, size - o, "\\x%02x", c);
      else
        out[o++] = (char) c;
    }
  out[o] = '\0';
}

/* A path of the summary: the kernel's, absolute, and fitting. */
static bool
take_path (struct kmsg_span s, char *out)
{
  return s.n > 0 && s.p[0] == '/' && kmsg_unescape (s, out, KMSG_PATH_MAX);
}

/* REST is "TASK_MEMCG,task=COMM" (TASK_MEMCG empty when WITH_PATH is
 * false).  The comm (the workload's, up to 15 bytes) and the path below the
 * container (the workload may name its sub-cgroups) can both hold
 * ",task=": take the leftmost split that leaves a comm that fits, so what
 * comes first, the path's trusted prefix, is never cut short of it. */
static bool
take_task (struct kmsg_span rest, bool with_path, struct kmsg_oom_kill *out)
{
  ssize_t at = -1;

  while ((at = span_find (rest, ",task=", (size_t) (at + 1), false)) >= 0)
    {
      struct kmsg_span comm = span_sub (rest, (size_t) at + 6, rest.n);
      if (!kmsg_unescape (comm, out->comm, sizeof out->comm))
        continue;
      if (!with_path)
        return true;
      if (take_path (span_sub (rest, 0, (size_t) at), out->task_memcg))
        return true;
    }
  return false;
}

/* After "oom-kill:": "constraint=C,nodemask=N[,cpuset=NAME,mems_allowed=L]
 * [,oom_memcg=P|,global_oom][,task_memcg=P],task=COMM,pid=N,uid=N" (the
 * cpuset part without CONFIG_CPUSETS, the memcg parts without CONFIG_MEMCG
 * are absent). */
static bool
parse_summary (struct kmsg_span s, struct kmsg_oom_kill *out)
{
  ssize_t comma, uid_at, pid_at, cs, slash = -1, tm;
  struct kmsg_span head, region;
  const char *sl;
  size_t pos;

  if (!span_take (&s, "constraint=") || (comma = span_find (s, ",", 0, false)) < 0)
    return false;
  out->memcg = (size_t) comma == strlen ("CONSTRAINT_MEMCG")
               && memcmp (s.p, "CONSTRAINT_MEMCG", (size_t) comma) == 0;
  /* pid and uid are the last two fields: from the right end, whatever
   * the comm holds. */
  if ((uid_at = span_find (s, ",uid=", 0, true)) < 0
      || !span_whole_i64 (span_sub (s, (size_t) uid_at + 5, s.n), &out->uid)
      || (pid_at = span_find (span_sub (s, 0, (size_t) uid_at), ",pid=", 0, true)) < 0
      || !span_whole_i64 (span_sub (s, (size_t) pid_at + 5, (size_t) uid_at), &out->pid)
      || out->pid <= 0 || out->pid > KMSG_PID_LIMIT)
    return false;
  head = span_sub (s, 0, (size_t) pid_at);
  /* The paths start at the first '/' after the cpuset's name: nothing
   * before them holds one (a cgroup's name cannot), but the root cpuset's
   * name is "/". */
  cs = span_find (head, ",cpuset=", (size_t) comma, false);
  pos = cs < 0 ? (size_t) comma
               : (size_t) cs + 8 + (head.n > (size_t) cs + 8 && head.p[cs + 8] == '/');
  if (pos <= head.n && (sl = memchr (head.p + pos, '/', head.n - pos)) != NULL)
    slash = sl - head.p;
  if (slash >= 0 && span_ends (span_sub (head, 0, (size_t) slash), ",oom_memcg="))
    {
      /* A path below the container may hold ",task_memcg=/": prefer the
       * split where the task's cgroup lies within the OOMing one (the
       * victim is chosen below it), else the leftmost. */
      region = span_sub (head, (size_t) slash, head.n);
      for (tm = -1; (tm = span_find (region, ",task_memcg=/", (size_t) (tm + 1), false)) >= 0;)
        {
          struct kmsg_oom_kill k = *out;
          if (!take_path (span_sub (region, 0, (size_t) tm), k.oom_memcg)
              || !take_task (span_sub (region, (size_t) tm + 12, region.n), true, &k))
            continue;
          bool within = kmsg_path_within (k.task_memcg, k.oom_memcg);
          if (within || out->oom_memcg[0] == '\0')
            *out = k;
          if (within)
            break;
        }
      return out->oom_memcg[0] != '\0';
    }
  if (slash >= 0 && span_ends (span_sub (head, 0, (size_t) slash), ",task_memcg="))
    return take_task (span_sub (head, (size_t) slash, head.n), true, out);
  /* No memcg: no path to match, only the comm. */
  return take_task (span_sub (head, 0, head.n), false, out);
}

/* After "Killed process ": "N (COMM) total-vm:NkB, anon-rss:NkB,
 * file-rss:NkB, shmem-rss:NkB[, UID:N pgtables:NkB oom_score_adj:N]". */
static bool
parse_victim (struct kmsg_span s, struct kmsg_oom_kill *out)
{
  uint64_t pid, uid;
  ssize_t close;

  if (!span_u64 (&s, &pid) || pid == 0 || pid > KMSG_PID_LIMIT || !span_take (&s, " ("))
    return false;
  out->pid = (int64_t) pid;
  /* The comm may hold ") total-vm:" too; what follows the last one is
   * the kernel's own. */
  if ((close = span_find (s, ") total-vm:", 0, true)) < 0
      || !kmsg_unescape (span_sub (s, 0, (size_t) close), out->comm, sizeof out->comm))
    return false;
  s = span_sub (s, (size_t) close + 11, s.n);
  if (!span_u64 (&s, &out->total_vm_kb) || !span_take (&s, "kB, anon-rss:")
      || !span_u64 (&s, &out->anon_rss_kb) || !span_take (&s, "kB, file-rss:")
      || !span_u64 (&s, &out->file_rss_kb) || !span_take (&s, "kB, shmem-rss:")
      || !span_u64 (&s, &out->shmem_rss_kb) || !span_take (&s, "kB"))
    return false;
  if (span_take (&s, ", UID:"))
    {
      if (!span_u64 (&s, &uid))
        return false;
      out->uid = (int64_t) uid;
    }
  return true;
}

/* The victim record's prefixes (oom_kill_process's message). */
static const char *const kmsg_victim_prefixes[] = {
  "Memory cgroup out of memory: Killed process ",
  "Out of memory: Killed process ",
  "Out of memory (oom_kill_allocating_task): Killed process ",
};

static enum kmsg_kind
classify (struct kmsg_span text, struct kmsg_oom_kill *out)
{
  static const char group_end[] = " are going to be killed due to memory.oom.group set";
  size_t i;

  if (span_take (&text, "oom-kill:"))
    return parse_summary (text, out) ? (out->have_summary = true, KMSG_K_SUMMARY)
                                     : KMSG_K_BAD_SUMMARY;
  for (i = 0; i < sizeof kmsg_victim_prefixes / sizeof kmsg_victim_prefixes[0]; i++)
    if (span_take (&text, kmsg_victim_prefixes[i]))
      return parse_victim (text, out) ? (out->have_victim = true, KMSG_K_VICTIM)
                                      : KMSG_K_BAD_VICTIM;
  if (span_take (&text, "Tasks in ") && span_ends (text, group_end))
    return take_path (span_sub (text, 0, text.n - strlen (group_end)), out->oom_group)
               ? KMSG_K_GROUP
               : KMSG_K_BAD_GROUP;
  return KMSG_K_OTHER;
}

/* "PRI,SEQ,TS_USEC,FLAGS[,...];TEXT\n[ KEY=VALUE\n...]": only records of
 * facility 0 (PRI = facility << 3 | level) are the kernel's: devkmsg_write
 * gives what a process writes facility 1 (LOG_USER) unless it asks for
 * another non-zero one, never 0. */
static enum kmsg_kind
kmsg_parse (const char *rec, size_t len, struct kmsg_oom_kill *out, uint64_t *ts_usec)
{
  struct kmsg_span s = { rec, len }, text;
  uint64_t pri, seq, ts;
  ssize_t semi, nl;

  memset (out, 0, sizeof *out);
  *ts_usec = 0;
  if (rec == NULL || (semi = span_find (s, ";", 0, false)) < 0)
    return KMSG_K_OTHER;
  text = span_sub (s, (size_t) semi + 1, s.n);
  s = span_sub (s, 0, (size_t) semi);
  if (!span_u64 (&s, &pri) || pri > 7 || !span_take (&s, ",") || !span_u64 (&s, &seq)
      || !span_take (&s, ",") || !span_u64 (&s, &ts) || !span_take (&s, ","))
    return KMSG_K_OTHER;
  /* 'c': a fragment continuing another record; the OOM records start
   * their line. */
  if (s.n == 0 || s.p[0] != '-')
    return KMSG_K_OTHER;
  if ((nl = span_find (text, "\n", 0, false)) >= 0)
    text = span_sub (text, 0, (size_t) nl);
  /* The kernel escapes every byte below ' ': a NUL is garbage. */
  if (memchr (text.p, '\0', text.n) != NULL)
    return KMSG_K_OTHER;
  out->seq = seq;
  *ts_usec = ts;
  return classify (text, out);
}

int
kmsg_parse_record (const char *rec, size_t len, struct kmsg_oom_kill *out)
{
  uint64_t ts;
  enum kmsg_kind k = kmsg_parse (rec, len, out, &ts);

  if (k == KMSG_K_SUMMARY || k == KMSG_K_VICTIM || k == KMSG_K_GROUP)
    return 1;
  memset (out, 0, sizeof *out);
  return 0;
}

bool
kmsg_path_within (const char *path, const char *cgroup)
{
  size_t n = strlen (cgroup);

  if (strcmp (cgroup, "/") == 0)
    return path[0] == '/';
  return strncmp (path, cgroup, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

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
  if (r->in_group && ts >= r->group_ts_usec && ts - r->group_ts_usec <= KMSG_GROUP_GAP_USEC)
    {
      r->group_ts_usec = ts;
      /* The kill that set the group off is listed again among its members. */
      if (k->pid == r->group_pid)
        return;
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
  /* The kernel prints paths from the hierarchy's root; a reader in
   * another cgroup namespace knows the container's path only relative to
   * its own root.  No /proc/self/ns/cgroup: a kernel without cgroup
   * namespaces, all in the initial one. */
  errno = 0;
  if (stat ("/proc/self/ns/cgroup", &st) < 0 ? errno != ENOENT : st.st_ino != KMSG_CGROUP_INIT_INO)
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

void
kmsg_reader_collect (struct kmsg_reader *r, struct kmsg_evidence *ev)
{
  char buf[KMSG_BUF_SIZE];
  int i;

  for (i = 0; r->fd >= 0 && i < KMSG_COLLECT_MAX; i++)
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
      if (n == 0 || (e != EPIPE && e != EINVAL))
        break; /* EAGAIN: nothing more now; anything else: give up for now */
      /* EPIPE: overwritten before they were read, the next read gives the
       * oldest record left.  EINVAL: a record larger than the buffer,
       * read(2) would return it again forever and /dev/kmsg seeks only to
       * its ends.  A summary or group cut from its victims cannot be
       * trusted across the gap. */
      ev->lost = true;
      flush_pending (r, ev);
      end_group (r);
      if (e == EINVAL && lseek (r->fd, 0, SEEK_END) < 0)
        break;
    }
}

void
kmsg_reader_close (struct kmsg_reader *r)
{
  if (r->fd >= 0)
    close (r->fd);
  r->fd = -1;
}

static const char *const kmsg_access_names[] = {
  [KMSG_NOT_READ] = "not_read",
  [KMSG_READ] = "read",
  [KMSG_DENIED] = "denied",
  [KMSG_OTHER_NS] = "other_ns",
};
#define KMSG_N_ACCESS (sizeof kmsg_access_names / sizeof kmsg_access_names[0])

/* Strings go out escaped as the kernel escapes them: the comm and the
 * workload's cgroup names are any bytes, and JSON wants UTF-8. */
static bool
gen_escaped (yajl_gen g, const char *key, const char *v)
{
  char buf[KMSG_PATH_MAX * 4];

  kmsg_escape (v, buf, sizeof buf);
  return json_kv_str (g, key, buf);
}

static bool
gen_kill (yajl_gen g, const struct kmsg_oom_kill *k)
{
  return yajl_gen_map_open (g) == yajl_gen_status_ok && json_kv_int (g, "seq", (long long) k->seq)
         && json_kv_bool (g, "memcg", k->memcg) && json_kv_bool (g, "summary", k->have_summary)
         && json_kv_bool (g, "victim", k->have_victim)
         && gen_escaped (g, "oom_memcg", k->oom_memcg)
         && gen_escaped (g, "task_memcg", k->task_memcg) && gen_escaped (g, "comm", k->comm)
         && json_kv_int (g, "pid", k->pid) && json_kv_int (g, "uid", k->uid)
         && json_kv_int (g, "total_vm_kb", (long long) k->total_vm_kb)
         && json_kv_int (g, "anon_rss_kb", (long long) k->anon_rss_kb)
         && json_kv_int (g, "file_rss_kb", (long long) k->file_rss_kb)
         && json_kv_int (g, "shmem_rss_kb", (long long) k->shmem_rss_kb)
         && json_kv_bool (g, "group_member", k->group_member)
         && gen_escaped (g, "oom_group", k->oom_group)
         && yajl_gen_map_close (g) == yajl_gen_status_ok;
}

int
kmsg_evidence_gen (yajl_gen g, const struct kmsg_evidence *ev, shim_error_t *err)
{
  unsigned a = (unsigned) ev->access;
  bool ok;
  size_t i;

  ok = yajl_gen_map_open (g) == yajl_gen_status_ok
       && json_kv_str (g, "access", a < KMSG_N_ACCESS ? kmsg_access_names[a] : "not_read")
       && json_kv_int (g, "error", ev->error) && json_kv_bool (g, "lost", ev->lost)
       && json_kv_int (g, "unattributed", (long long) ev->unattributed)
       && json_kv_bool (g, "truncated", ev->truncated) && json_str (g, "kills")
       && yajl_gen_array_open (g) == yajl_gen_status_ok;
  for (i = 0; ok && i < ev->n && i < KMSG_MAX_KILLS; i++)
    ok = gen_kill (g, &ev->kills[i]);
  ok = ok && yajl_gen_array_close (g) == yajl_gen_status_ok
       && yajl_gen_map_close (g) == yajl_gen_status_ok;
  if (!ok)
    return shim_error_plain (err, EIO, "kmsg evidence: cannot write its JSON");
  return 0;
}

/* The readers: an absent (or null) key keeps the zero value; a key of the
 * wrong type is an error naming it. */
static int
get_bool (yajl_val o, const char *where, const char *key, bool *out, shim_error_t *err)
{
  yajl_val v = json_field (o, key);

  if (v != NULL && !YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
    return shim_error_plain (err, EINVAL, "%s.%s: not a boolean", where, key);
  *out = v != NULL && YAJL_IS_TRUE (v);
  return 0;
}

static int
get_int (yajl_val o, const char *where, const char *key, long long min, long long max,
         long long *out, shim_error_t *err)
{
  yajl_val v = json_field (o, key);

  if (v != NULL
      && (!YAJL_IS_INTEGER (v) || YAJL_GET_INTEGER (v) < min || YAJL_GET_INTEGER (v) > max))
    return shim_error_plain (err, EINVAL, "%s.%s: not an integer from %lld to %lld", where, key,
                             min, max);
  *out = v != NULL ? YAJL_GET_INTEGER (v) : 0;
  return 0;
}

static int
get_str (yajl_val o, const char *where, const char *key, char *out, size_t size, shim_error_t *err)
{
  yajl_val v = json_field (o, key);
  struct kmsg_span s = { v && YAJL_IS_STRING (v) ? v->u.string : "", 0 };

  if (v != NULL && !YAJL_IS_STRING (v))
    return shim_error_plain (err, EINVAL, "%s.%s: not a string", where, key);
  s.n = strlen (s.p);
  if (!kmsg_unescape (s, out, size))
    return shim_error_plain (err, EINVAL, "%s.%s: longer than %zu bytes or badly escaped", where,
                             key, size - 1);
  return 0;
}

static int
kill_from_tree (yajl_val o, const char *where, struct kmsg_oom_kill *k, shim_error_t *err)
{
  long long seq = 0, pid = 0, uid = 0, vm = 0, anon = 0, file = 0, shmem = 0;
  const long long big = (long long) KMSG_NUM_LIMIT;

  if (!YAJL_IS_OBJECT (o))
    return shim_error_plain (err, EINVAL, "%s: not an object", where);
  if (get_int (o, where, "seq", 0, LLONG_MAX, &seq, err) < 0
      || get_bool (o, where, "memcg", &k->memcg, err) < 0
      || get_bool (o, where, "summary", &k->have_summary, err) < 0
      || get_bool (o, where, "victim", &k->have_victim, err) < 0
      || get_str (o, where, "oom_memcg", k->oom_memcg, sizeof k->oom_memcg, err) < 0
      || get_str (o, where, "task_memcg", k->task_memcg, sizeof k->task_memcg, err) < 0
      || get_str (o, where, "comm", k->comm, sizeof k->comm, err) < 0
      || get_int (o, where, "pid", 0, KMSG_PID_LIMIT, &pid, err) < 0
      || get_int (o, where, "uid", -big, big, &uid, err) < 0
      || get_int (o, where, "total_vm_kb", 0, big, &vm, err) < 0
      || get_int (o, where, "anon_rss_kb", 0, big, &anon, err) < 0
      || get_int (o, where, "file_rss_kb", 0, big, &file, err) < 0
      || get_int (o, where, "shmem_rss_kb", 0, big, &shmem, err) < 0
      || get_bool (o, where, "group_member", &k->group_member, err) < 0
      || get_str (o, where, "oom_group", k->oom_group, sizeof k->oom_group, err) < 0)
    return -1;
  k->seq = (uint64_t) seq;
  k->pid = pid;
  k->uid = uid;
  k->total_vm_kb = (uint64_t) vm;
  k->anon_rss_kb = (uint64_t) anon;
  k->file_rss_kb = (uint64_t) file;
  k->shmem_rss_kb = (uint64_t) shmem;
  return 0;
}

int
kmsg_evidence_from_tree (yajl_val v, const char *where, struct kmsg_evidence *ev,
                         shim_error_t *err)
{
  long long error = 0, unattributed = 0;
  const char *access;
  yajl_val kills;
  size_t i;

  memset (ev, 0, sizeof *ev);
  if (v == NULL || YAJL_IS_NULL (v))
    return 0;
  if (!YAJL_IS_OBJECT (v))
    return shim_error_plain (err, EINVAL, "%s: not an object", where);
  if ((access = json_field_str (v, "access")) == NULL)
    return shim_error_plain (err, EINVAL, "%s.access: missing or not a string", where);
  for (i = 0; i < KMSG_N_ACCESS && strcmp (access, kmsg_access_names[i]) != 0; i++)
    ;
  if (i == KMSG_N_ACCESS)
    return shim_error_plain (err, EINVAL, "%s.access: unknown value `%s`", where, access);
  ev->access = (enum kmsg_access) i;
  if (get_int (v, where, "error", 0, INT_MAX, &error, err) < 0
      || get_bool (v, where, "lost", &ev->lost, err) < 0
      || get_int (v, where, "unattributed", 0, LLONG_MAX, &unattributed, err) < 0
      || get_bool (v, where, "truncated", &ev->truncated, err) < 0)
    return -1;
  ev->error = (int) error;
  ev->unattributed = (uint64_t) unattributed;
  if ((kills = json_field (v, "kills")) == NULL)
    return 0;
  if (!YAJL_IS_ARRAY (kills) || kills->u.array.len > KMSG_MAX_KILLS)
    return shim_error_plain (err, EINVAL, "%s.kills: not an array of at most %d kills", where,
                             KMSG_MAX_KILLS);
  for (i = 0; i < kills->u.array.len; i++)
    {
      char w[256];
      snprintf (w, sizeof w, "%s.kills[%zu]", where, i);
      if (kill_from_tree (kills->u.array.values[i], w, &ev->kills[i], err) < 0)
        return -1;
      ev->n++;
    }
  return 0;
}
