/* SPDX-License-Identifier: Apache-2.0 */
/* Cleanup attributes and small fd-based file helpers shared by both binaries. */
#ifndef SHIM_UTIL_H
#define SHIM_UTIL_H

#include <stdbool.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#include "common/error.h"

static inline void
cleanup_freep (void *p)
{
  free (*(void **) p);
}
static inline void
cleanup_closep (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
    }
}
static inline void
cleanup_fclosep (FILE **f)
{
  if (*f)
    fclose (*f);
}
static inline void
cleanup_closedirp (DIR **d)
{
  if (*d)
    closedir (*d);
}
static inline void
cleanup_errorp (shim_error_t *e)
{
  shim_error_release (e);
}

#define cleanup_free __attribute__ ((cleanup (cleanup_freep)))
#define cleanup_close __attribute__ ((cleanup (cleanup_closep)))
#define cleanup_fclose __attribute__ ((cleanup (cleanup_fclosep)))
#define cleanup_dir __attribute__ ((cleanup (cleanup_closedirp)))
#define cleanup_error __attribute__ ((cleanup (cleanup_errorp)))

/* Hand ownership out of a cleanup variable. */
#define steal_pointer(pp) ({ __typeof__ (*(pp)) _p = *(pp); *(pp) = NULL; _p; })
#define steal_fd(fdp) ({ int _fd = *(fdp); *(fdp) = -1; _fd; })

/* A key and its value (sysctl, annotations, linux.resources.unified). */
struct util_kv
{
  char *key;
  char *value;
};

/* Read a whole file relative to dirfd (AT_FDCWD for a path) into a
 * NUL-terminated buffer.  *len may be NULL.  Returns 0 or -1 with *err set,
 * naming the file; err->status is the errno (ENOENT for a missing file). */
int util_read_file_at (int dirfd, const char *name, char **out, size_t *len, shim_error_t *err);

/* Write data to an existing file relative to dirfd (cgroup and /proc knobs:
 * O_WRONLY without O_CREAT or O_TRUNC).  One write(2): the kernel rejects
 * partial writes to control files. */
int util_write_file_at (int dirfd, const char *name, const char *data, size_t len, shim_error_t *err);

/* Create or replace a regular file atomically (write NAME.tmp, then rename),
 * so a reader never sees it half-written. */
int util_write_file_atomic_at (int dirfd, const char *name, const char *data, size_t len, mode_t mode,
                          shim_error_t *err);

/* Open the directory PATH, creating it and any missing parent with MODE
 * (mkdir -p, as runc does for --root).  Returns an O_DIRECTORY fd or -1. */
int util_mkdir_all (const char *path, mode_t mode, shim_error_t *err);

/* Strict decimal parse of a whole string (surrounding whitespace allowed). */
int util_parse_u64 (const char *s, uint64_t *out);
int util_parse_i64 (const char *s, int64_t *out);
/* A byte count with an optional binary unit, as docker's and runc's
 * --memory take it: "64M", "1.5G", "512k", "1048576".  Positive only. */
int util_parse_size (const char *s, int64_t *out);

/* Now, as RFC 3339 UTC with nanoseconds ("2026-12-03T09:07:15.123456789Z"),
 * the form runc writes in state.json and its JSON log lines.  len >= 40. */
#define UTIL_RFC3339_LEN 40
void util_rfc3339_now (char *buf, size_t len);
/* NS (nanoseconds since the epoch) as RFC 3339 UTC with nanoseconds. */
void util_rfc3339 (int64_t ns, char *buf, size_t len);

/* Milliseconds on CLOCK_MONOTONIC, for deadlines. */
long long util_monotonic_ms (void);

/* poll(2) until DEADLINE (a util_monotonic_ms () value; < 0: none),
 * retrying on EINTR with the time left: > 0 ready, 0 the deadline passed,
 * < 0 failed (errno).  Every wait of the runtime has a bound: this is it. */
int util_poll_until (struct pollfd *p, nfds_t n, long long deadline);

/* Fault in the page tables of every loaded object's segments
 * (MADV_POPULATE_READ, Linux 5.14; a no-op before), so that code run for
 * the first time later does not wait on page faults then: -1 (errno) when
 * a segment could not be populated. */
int util_populate_mappings (void);

/* memfd_create(2) with MFD_CLOEXEC, FLAGS and the kernel's word on
 * execution (Linux 6.3): MFD_EXEC for a copy that will be executed,
 * MFD_NOEXEC_SEAL (which allows sealing) for data.  Without either the
 * kernel logs a warning, and where vm.memfd_noexec is 1 (per pid
 * namespace) it makes the memfd non-executable, so that an execveat of the
 * copy fails with EACCES.  Before 6.3 the flags are EINVAL: retried
 * without.  -1 (errno) on failure. */
int util_memfd_create (const char *name, unsigned int flags, bool exec);

/* Ask the scheduler for a time slice of NS nanoseconds for the calling
 * thread, keeping its fair policy and nice value (other policies are left
 * alone): a task whose bursts are that short then preempts the running one
 * when it wakes (EEVDF, Linux 6.12; earlier kernels ignore the request).
 * -1 (errno) when it was refused. */
int util_sched_slice (uint64_t ns);

/* Whether this process is in the initial namespace of kind NS ("pid",
 * "cgroup", "user"): 1 yes, 0 no, -1 unknown (errno).  The kernel gives each
 * initial namespace a fixed inode (PROC_PID_INIT_INO, ...); a kernel
 * without /proc/self/ns/NS has no such namespaces, so all is initial. */
int util_ns_initial (const char *ns);

/* Whether shim runs rootless, runc's rule (libcontainer/userns
 * RunningInUserNS and its rootless check) but for an unset $USER: not
 * root, or root of a user namespace other than the initial one with $USER
 * unset or not "root".  Rootless podman runs the runtime as root of the
 * user's namespace and calls start, kill and delete with no $USER (runc
 * then takes it for root).  Rootless: the state goes to
 * $XDG_RUNTIME_DIR/shim, --systemd-cgroup asks the user's systemd
 * manager, a cgroup it may not make is done without where no limit needs
 * one, and the history is the user's.  util_rootless_decide is the rule
 * alone: INITIAL_USERNS is util_ns_initial ("user"), USER $USER's value
 * (NULL: unset). */
bool util_rootless (void);
bool util_rootless_decide (uid_t euid, int initial_userns, const char *user);

/* The uid that INSIDE is outside this user namespace, from MAP (the text
 * of /proc/PID/uid_map: "inside outside count" lines): 0, or -1 when MAP
 * does not map it. */
int util_uid_map_outside (const char *map, uid_t inside, uid_t *outside);
/* This process's effective uid as its parent user namespace sees it (/proc/self/uid_map); geteuid () when unknown. */
uid_t util_outside_uid (void);

/* Why ID cannot be a container id (runc's rule: 1 to 1024 of letters,
 * digits and `_-.+`, not `.` or `..`, so it is always one path component),
 * or NULL when it can. */
const char *util_id_invalid (const char *id);

#endif
