/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel log read for one container: /dev/kmsg opened at its end when
 * the container is armed, every record parsed (verdict/kmsg.h), each OOM
 * summary joined with its victim record, the members of a group kill
 * joined with the kill that set it off, and the kills whose cgroup is the
 * container's (or below it) kept in a struct kmsg_evidence.  Used by the
 * one collector of `shim run`, the detached watcher and the hook. */
#ifndef SHIM_KMSG_READER_H
#define SHIM_KMSG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdict/kmsg.h"

struct kmsg_reader
{
  int fd; /* /dev/kmsg, O_RDONLY | O_NONBLOCK | O_CLOEXEC, at the end; -1 */
  unsigned max_records; /* read by one collect at most; 0: the default */
  /* The kernel's path of the container's cgroup. */
  char cgroup[KMSG_PATH_MAX];
  /* A summary whose victim record has not been read yet. */
  bool have_pending;
  struct kmsg_oom_kill pending;
  /* kmsg_reader.c's state between records: the last victim joined with its
   * summary (0: none), for a group record that follows it, and the group
   * kill whose members' records (no summaries) are being read. */
  int64_t last_pid;
  char last_oom_memcg[KMSG_PATH_MAX];
  bool in_group;
  int64_t group_pid;
  uint64_t group_ts_usec, group_seq; /* of the group's last record */
  char group[KMSG_PATH_MAX];
  char group_oom_memcg[KMSG_PATH_MAX];
};

/* Open /dev/kmsg positioned at its end (records from now on), for the
 * cgroup whose kernel path is CGROUP.  Never fails: a reader that cannot
 * read records why in EV (access, error); r->fd is then -1. */
void kmsg_reader_open (struct kmsg_reader *r, const char *cgroup, struct kmsg_evidence *ev);

/* The fd to poll for POLLIN, or -1. */
int kmsg_reader_fd (const struct kmsg_reader *r);

/* Read every record available now (never blocks) and add the OOM kills
 * that concern the container (oom_memcg or task_memcg within its cgroup)
 * to EV. */
void kmsg_reader_collect (struct kmsg_reader *r, struct kmsg_evidence *ev);
/* The same, as the last read: when it cannot read all there is (a flood
 * past the bound on records per read, a read error) the evidence is
 * marked lost. */
void kmsg_reader_collect_end (struct kmsg_reader *r, struct kmsg_evidence *ev);
/* kmsg_reader_collect, reading at most MAX records (0: its bound): what
 * is left keeps the fd readable for the next poll. */
void kmsg_reader_collect_some (struct kmsg_reader *r, struct kmsg_evidence *ev, unsigned max);

/* Take one record as read(2) returned it (collect calls it for each; the
 * unit tests feed fixtures through it to a reader whose fd is -1). */
void kmsg_reader_feed (struct kmsg_reader *r, const char *rec, size_t len,
                       struct kmsg_evidence *ev);

void kmsg_reader_close (struct kmsg_reader *r);

#endif
