/* SPDX-License-Identifier: Apache-2.0 */
/* The second witness: the kernel's own report of each OOM kill, read from
 * /dev/kmsg.  For every kill mm/oom_kill.c writes a summary record
 *   oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,
 *     mems_allowed=0,oom_memcg=/a/b,task_memcg=/a/b/c,task=NAME,pid=N,uid=N
 * (rate-limited with the rest of the OOM report: 10 per 5 s) and, never
 * rate-limited, the victim record
 *   Memory cgroup out of memory: Killed process N (NAME) total-vm:NkB,
 *     anon-rss:NkB, file-rss:NkB, shmem-rss:NkB, UID:N pgtables:NkB
 *     oom_score_adj:N
 * ("Out of memory: ..." for a host-wide OOM).  oom_memcg names the cgroup
 * whose limit ran out, task_memcg the one the victim lived in: exactly what
 * the counters leave ambiguous.  Only kernel-facility records count: what a
 * process writes to /dev/kmsg always gets a non-zero facility (the kernel
 * turns facility 0 into LOG_USER), so the workload cannot forge one.
 * The paths are the kernel's, from the root of the memory controller's
 * hierarchy, whatever cgroup namespace the reader is in. */
#ifndef SHIM_KMSG_H
#define SHIM_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KMSG_PATH_MAX 512
#define KMSG_COMM_MAX 16 /* TASK_COMM_LEN, with its NUL */
#define KMSG_MAX_KILLS 16
/* Bounds of a record's numbers, read or stored: larger ones are malformed. */
#define KMSG_PID_LIMIT 4194304 /* PID_MAX_LIMIT */
#define KMSG_NUM_LIMIT (UINT64_C (1) << 53)

/* One OOM kill: a summary record and its victim record, joined by pid. */
struct kmsg_oom_kill
{
  uint64_t seq;    /* the summary's sequence number (the victim's without one) */
  bool memcg;      /* constraint=CONSTRAINT_MEMCG: a cgroup's limit ran out */
  bool have_summary; /* the oom-kill: record was seen (it is rate-limited) */
  bool have_victim;  /* the Killed process record was seen (without it the
                      * summary proves no kill: the kernel skips a victim
                      * that is already exiting) */
  char oom_memcg[KMSG_PATH_MAX];  /* "" when absent (host-wide OOM) */
  char task_memcg[KMSG_PATH_MAX];
  char comm[KMSG_COMM_MAX];
  int64_t pid; /* in the initial pid namespace */
  int64_t uid;
  uint64_t total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb;
  /* Killed as a member of a memory.oom.group cgroup (the victim records
   * after "Tasks in PATH are going to be killed due to memory.oom.group
   * set", which have no summary of their own): task_memcg is then "" and
   * oom_memcg the group's triggering kill's. */
  bool group_member;
  char oom_group[KMSG_PATH_MAX]; /* that cgroup, also on the kill that set it off; "" */
};
/* The paths and comm are the kernel's bytes (its \xNN escapes undone):
 * escape them before printing (kmsg_escape). */

/* Why the kernel log could not be read at all. */
enum kmsg_access
{
  KMSG_NOT_READ = 0, /* no reader was armed (an old record, a caller without one) */
  KMSG_READ,         /* read from arming on */
  KMSG_DENIED,       /* open(/dev/kmsg) failed: errno in kmsg_evidence.error
                      * (EPERM: no CAP_SYSLOG, or dmesg_restrict) */
  KMSG_OTHER_NS,     /* the reader is not in the initial cgroup namespace: the
                      * kernel's paths cannot be matched to the container's */
};

/* What the kernel log said about one container, from arming on.  Persisted
 * in the watcher's record (evidence/kmsg_evidence.h). */
struct kmsg_evidence
{
  /* The kernel's path of the cgroup the evidence is about (the reader's),
   * so that a record read later still knows whose kills these are. */
  char cgroup[KMSG_PATH_MAX];
  enum kmsg_access access;
  int error;
  /* Records were overwritten before they were read (read(2) gave EPIPE):
   * a kill may be missing. */
  bool lost;
  /* Victim records of this container's processes or of unknown cgroups
   * whose summary was rate-limited away: kills that cannot be attributed. */
  uint64_t unattributed;
  /* More matching kills than KMSG_MAX_KILLS: the first ones are kept. */
  bool truncated;
  /* A group kill's first victim listed again among the group's members
   * (kept once): the kernel counted it in oom_kill twice. */
  uint64_t relisted;
  size_t n;
  struct kmsg_oom_kill kills[KMSG_MAX_KILLS];
};

/* What one record of /dev/kmsg is. */
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

/* Parse one record as read(2) from /dev/kmsg returns it ("PRI,SEQ,TS,FLAGS;
 * TEXT\n" and optional " KEY=VALUE" lines) into *OUT (zeroed first) and
 * its timestamp in microseconds into *TS_USEC.  Only kernel-facility
 * records are anything but KMSG_K_OTHER. */
enum kmsg_kind kmsg_parse (const char *rec, size_t len, struct kmsg_oom_kill *out,
                           uint64_t *ts_usec);

/* The same, for a caller that needs no kind: returns 1 and fills *out (a
 * summary fills the summary fields, a victim record the victim fields) when
 * it is a kernel-facility OOM record, 0 when it is anything else (another
 * message, a user-facility record, a malformed one). */
int kmsg_parse_record (const char *rec, size_t len, struct kmsg_oom_kill *out);
/* (A "Tasks in PATH ... memory.oom.group" record returns 1 too, with only
 * oom_group set.) */

/* S with bytes below ' ', from 127 on and '\\' written as \xNN, as the
 * kernel writes /dev/kmsg; truncated to fit OUT (SIZE > 0). */
void kmsg_escape (const char *s, char *out, size_t size);
/* The reverse, into OUT: false when S is not as the kernel escapes, holds
 * a NUL, or does not fit SIZE (never cut: a cut path names another
 * cgroup). */
bool kmsg_unescape_str (const char *s, char *out, size_t size);

/* Whether PATH (as the kernel prints it) is CGROUP or below it. */
bool kmsg_path_within (const char *path, const char *cgroup);

#endif
