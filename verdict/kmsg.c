/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel-log witness's records (kmsg.h): parse the OOM killer's
 * records as /dev/kmsg gives them; evidence/kmsg_reader.c reads them and
 * joins each summary with its victim record.  The formats are mm/oom_kill.c's
 * (dump_oom_summary, renamed dump_oom_victim in 6.7; __oom_kill_process)
 * and mm/memcontrol.c's (mem_cgroup_print_oom_context,
 * mem_cgroup_print_oom_group), the same on 6.1, 6.12 and 6.18; the record
 * framing is kernel/printk's (info_print_ext_header, msg_add_ext_text). */
#include "verdict/kmsg.h"

#include <stdio.h>
#include <string.h>

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

bool
kmsg_unescape_str (const char *s, char *out, size_t size)
{
  return kmsg_unescape ((struct kmsg_span){ s, strlen (s) }, out, size);
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
enum kmsg_kind
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
