/* SPDX-License-Identifier: Apache-2.0 */
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

int
util_read_file_at (int dirfd, const char *name, char **out, size_t *len, shim_error_t *err)
{
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  cleanup_free char *buf = NULL;
  size_t used = 0, cap = 0;

  if (fd < 0)
    return shim_error_errno (err, "open `%s`", name);
  for (;;)
    {
      ssize_t r;
      if (cap - used < 2)
        {
          /* cgroup and proc files report size 0: grow as we go. */
          size_t ncap = cap ? cap * 2 : 4096;
          char *n = realloc (buf, ncap);
          if (n == NULL)
            return shim_error_errno (err, "read `%s`", name);
          buf = n;
          cap = ncap;
        }
      r = read (fd, buf + used, cap - used - 1);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          return shim_error_errno (err, "read `%s`", name);
        }
      if (r == 0)
        break;
      used += (size_t) r;
    }
  if (buf == NULL)
    {
      buf = malloc (1);
      if (buf == NULL)
        return shim_error_errno (err, "read `%s`", name);
    }
  buf[used] = '\0';
  if (len)
    *len = used;
  *out = steal_pointer (&buf);
  return 0;
}

int
util_write_file_at (int dirfd, const char *name, const char *data, size_t len, shim_error_t *err)
{
  cleanup_close int fd = openat (dirfd, name, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  ssize_t r;

  if (fd < 0)
    return shim_error_errno (err, "open `%s`", name);
  do
    r = write (fd, data, len);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return shim_error_errno (err, "write `%.*s` to `%s`", (int) (len > 64 ? 64 : len), data, name);
  if ((size_t) r != len)
    return shim_error (err, EIO, "short write to `%s`", name);
  return 0;
}

int
util_write_file_atomic_at (int dirfd, const char *name, const char *data, size_t len, mode_t mode,
                      shim_error_t *err)
{
  cleanup_free char *tmp = NULL;
  cleanup_close int fd = -1;
  size_t off = 0;

  if (asprintf (&tmp, "%s.tmp", name) < 0)
    return shim_error_errno (err, "write `%s`", name);
  fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0)
    return shim_error_errno (err, "create `%s`", tmp);
  while (off < len)
    {
      ssize_t r = write (fd, data + off, len - off);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          int saved = errno;
          unlinkat (dirfd, tmp, 0);
          return shim_error (err, saved, "write `%s`", tmp);
        }
      off += (size_t) r;
    }
  if (renameat (dirfd, tmp, dirfd, name) < 0)
    {
      int saved = errno;
      unlinkat (dirfd, tmp, 0);
      return shim_error (err, saved, "rename `%s` to `%s`", tmp, name);
    }
  return 0;
}

/* Strict decimal: optional surrounding whitespace, nothing else around the
 * digits.  Signs are the caller's business (parse_u64 refuses them). */
static int
parse_whole (const char *s, bool is_signed, long long *sv, unsigned long long *uv)
{
  char *end;

  while (isspace ((unsigned char) *s))
    s++;
  if (*s == '\0' || (!is_signed && (*s == '-' || *s == '+')))
    return -1;
  errno = 0;
  if (is_signed)
    *sv = strtoll (s, &end, 10);
  else
    *uv = strtoull (s, &end, 10);
  if (errno != 0 || end == s)
    return -1;
  while (isspace ((unsigned char) *end))
    end++;
  return *end == '\0' ? 0 : -1;
}

int
util_parse_i64 (const char *s, int64_t *out)
{
  long long v;
  if (parse_whole (s, true, &v, NULL) < 0)
    return -1;
  *out = v;
  return 0;
}

int
util_parse_u64 (const char *s, uint64_t *out)
{
  unsigned long long v;
  if (parse_whole (s, false, NULL, &v) < 0)
    return -1;
  *out = v;
  return 0;
}

int
util_mkdir_all (const char *path, mode_t mode, shim_error_t *err)
{
  cleanup_free char *dup = strdup (path);
  cleanup_close int dirfd = -1;
  char *comp, *save = NULL;

  if (dup == NULL)
    return shim_error_errno (err, "`%s`", path);
  dirfd = open (path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return shim_error_errno (err, "open `%s`", path[0] == '/' ? "/" : ".");
  /* One component at a time from a directory fd: no path is resolved twice. */
  for (comp = strtok_r (dup, "/", &save); comp; comp = strtok_r (NULL, "/", &save))
    {
      int next;
      if (mkdirat (dirfd, comp, mode) < 0 && errno != EEXIST)
        return shim_error_errno (err, "create `%s` (at `%s`)", path, comp);
      next = openat (dirfd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (next < 0)
        return shim_error_errno (err, "open `%s` (at `%s`)", path, comp);
      close (dirfd);
      dirfd = next;
    }
  return steal_fd (&dirfd);
}

/* The UTC calendar date of day DAYS since 1970-01-01 (the proleptic
 * Gregorian calendar, in 400-year eras of 146097 days).  Computed, not
 * asked of gmtime_r: glibc reads the time zone (/etc/localtime) at the
 * first gmtime_r of a process, which every start of shim would pay. */
static void
civil_from_days (int64_t days, int64_t *y, int *m, int *d)
{
  int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;                                     /* [0, 146096] */
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);              /* [0, 365], from March 1 */
  int64_t mp = (5 * doy + 2) / 153;                                   /* [0, 11], March = 0 */

  *d = (int) (doy - (153 * mp + 2) / 5 + 1);
  *m = (int) (mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

void
util_rfc3339 (int64_t ns, char *buf, size_t len)
{
  int64_t sec = ns / 1000000000, frac = ns % 1000000000, days, secs, y;
  int m, d;

  if (frac < 0)
    {
      frac += 1000000000;
      sec--;
    }
  days = sec / 86400;
  secs = sec % 86400;
  if (secs < 0)
    {
      secs += 86400;
      days--;
    }
  civil_from_days (days, &y, &m, &d);
  snprintf (buf, len, "%04lld-%02d-%02dT%02d:%02d:%02d.%09lldZ", (long long) y, m, d, (int) (secs / 3600),
            (int) (secs / 60 % 60), (int) (secs % 60), (long long) frac);
}

void
util_rfc3339_now (char *buf, size_t len)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  util_rfc3339 ((int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec, buf, len);
}

long long
util_monotonic_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
util_ns_initial (const char *ns)
{
  static const struct
  {
    const char *name;
    unsigned long ino;
  } init_ino[] = {
    /* include/linux/proc_ns.h; uapi/linux/nsfs.h names them since 6.x. */
    { "pid", 0xEFFFFFFCUL },    /* PROC_PID_INIT_INO */
    { "cgroup", 0xEFFFFFFBUL }, /* PROC_CGROUP_INIT_INO */
    { "user", 0xEFFFFFFDUL },   /* PROC_USER_INIT_INO */
  };
  char path[64];
  struct stat st;

  for (size_t i = 0; i < sizeof init_ino / sizeof init_ino[0]; i++)
    {
      if (strcmp (ns, init_ino[i].name) != 0)
        continue;
      snprintf (path, sizeof path, "/proc/self/ns/%s", ns);
      if (stat (path, &st) < 0)
        return errno == ENOENT ? 1 : -1;
      return st.st_ino == init_ino[i].ino;
    }
  errno = EINVAL;
  return -1;
}

bool
util_rootless_decide (uid_t euid, int initial_userns, const char *user)
{
  if (euid != 0)
    return true;
  /* Root of the initial user namespace, or unknown: not rootless. */
  if (initial_userns != 0)
    return false;
  /* Root of a user namespace: rootless unless $USER says root.  runc also
   * wants $USER set; podman calls start, kill and delete with no
   * environment but XDG_RUNTIME_DIR and PATH. */
  return user == NULL || strcmp (user, "root") != 0;
}

bool
util_rootless (void)
{
  return util_rootless_decide (geteuid (), util_ns_initial ("user"), getenv ("USER"));
}

int
util_uid_map_outside (const char *map, uid_t inside, uid_t *outside)
{
  unsigned long in, out, count;
  int n = 0;

  while (map && sscanf (map, " %lu %lu %lu%n", &in, &out, &count, &n) == 3)
    {
      if (inside >= in && inside - in < count)
        {
          *outside = (uid_t) (out + (inside - in));
          return 0;
        }
      map += n;
    }
  return -1;
}

uid_t
util_outside_uid (void)
{
  cleanup_free char *map = NULL;
  shim_error_t err = NULL;
  uid_t uid = geteuid (), out;

  if (util_read_file_at (AT_FDCWD, "/proc/self/uid_map", &map, NULL, &err) < 0)
    {
      shim_error_release (&err);
      return uid;
    }
  return util_uid_map_outside (map, uid, &out) == 0 ? out : uid;
}

int
util_poll_until (struct pollfd *p, nfds_t n, long long deadline)
{
  for (;;)
    {
      long long left = deadline < 0 ? -1 : deadline - util_monotonic_ms ();
      int r;
      if (deadline >= 0 && left <= 0)
        return 0;
      r = poll (p, n, left > INT_MAX ? INT_MAX : (int) left);
      if (r >= 0 || errno != EINTR)
        return r;
    }
}

const char *
util_id_invalid (const char *id)
{
  size_t n = strlen (id);

  if (n == 0 || n > 1024)
    return "must be 1 to 1024 characters";
  if (strcmp (id, ".") == 0 || strcmp (id, "..") == 0)
    return "invalid";
  for (const char *p = id; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'
          || *p == '-' || *p == '.' || *p == '+'))
      return "only letters, digits and `_-.+` are allowed";
  return NULL;
}

/* "64M", "1.5G", "512k", "1048576": bytes.  Binary units, as docker's
 * --memory. */
int
util_parse_size (const char *s, int64_t *out)
{
  char *end;
  double v;
  double mult = 1;

  errno = 0;
  v = strtod (s, &end);
  if (errno || end == s || v <= 0)
    return -1;
  switch (*end)
    {
    case '\0': break;
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: return -1;
    }
  if (*end == 'i' && end[-1] != *s)
    end++;
  if (*end == 'b' || *end == 'B')
    end++;
  if (*end != '\0' || v * mult > 9e18)
    return -1;
  *out = (int64_t) (v * mult);
  return 0;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static int
populate_object (struct dl_phdr_info *info, size_t size, void *data)
{
  long page = sysconf (_SC_PAGESIZE);
  int *failed = data;

  (void) size;
  for (unsigned i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      uintptr_t start, end;

      if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
        continue;
      start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t) (page - 1);
      end = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
      /* The file-backed part only: the rest is .bss, zero pages. */
      if (end > start && madvise ((void *) start, end - start, MADV_POPULATE_READ) < 0 && errno != EINVAL)
        *failed = errno;
    }
  return 0;
}

int
util_populate_mappings (void)
{
  int failed = 0;

  dl_iterate_phdr (populate_object, &failed);
  if (failed)
    {
      errno = failed;
      return -1;
    }
  return 0;
}

/* sched_setattr's argument, its first version (SCHED_ATTR_SIZE_VER0):
 * <linux/sched/types.h> cannot be included beside <sched.h>. */
struct sched_attr_v0
{
  uint32_t size, sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime, sched_deadline, sched_period;
};

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

int
util_memfd_create (const char *name, unsigned int flags, bool exec)
{
  int fd = memfd_create (name, MFD_CLOEXEC | flags | (exec ? MFD_EXEC : MFD_NOEXEC_SEAL));

  if (fd < 0 && errno == EINVAL)
    fd = memfd_create (name, MFD_CLOEXEC | flags);
  return fd;
}

int
util_sched_slice (uint64_t ns)
{
  struct sched_attr_v0 attr = { .size = sizeof attr, .sched_runtime = ns };
  int policy = sched_getscheduler (0), nice;

  if (policy < 0)
    return -1;
  /* Only the fair policies have a slice to ask for. */
  attr.sched_policy = (uint32_t) (policy & ~SCHED_RESET_ON_FORK);
  if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
    return 0;
  /* sched_setattr sets the nice value too: the current one, kept. */
  errno = 0;
  nice = getpriority (PRIO_PROCESS, 0);
  if (nice == -1 && errno != 0)
    return -1;
  attr.sched_nice = nice;
  if (policy & SCHED_RESET_ON_FORK)
    attr.sched_flags = 1; /* SCHED_FLAG_RESET_ON_FORK, kept */
  return (int) syscall (SYS_sched_setattr, 0, &attr, 0);
}
