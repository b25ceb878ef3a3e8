/* SPDX-License-Identifier: Apache-2.0 */
/* Capabilities, seccomp and LSM labels for the container's init.
 *
 * The order is runc's, for the same reasons:
 *   prepare (host in view):  LSM checks, build the filter, connect to the
 *                            seccomp listener, drop the bounding set (needs
 *                            CAP_SETPCAP, gone after a uid change), set
 *                            keep-caps (or setresuid to a non-root uid
 *                            would empty the permitted set);
 *   the caller:              rootfs, setresuid, noNewPrivileges, close_range;
 *   apply (before exec):     LSM label for exec, effective/permitted/
 *                            inheritable, then ambient (which must be both
 *                            permitted and inheritable), seccomp last.
 * Without noNewPrivileges, loading a filter needs CAP_SYS_ADMIN: then the
 * filter is loaded before the capabilities are reduced (runc does the
 * same), and the few syscalls left before exec (capset, prctl, execve) must
 * be allowed by it. */
#include "runtime/security.h"

#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "common/json.h"
#include "common/log.h"
#include "common/util.h"

/* ---- capabilities ---- */

/* The spec's spelling of a capability: "CAP_KILL". */
static const char *
cap_name (int v, char *buf, size_t len)
{
  char *n = cap_to_name ((cap_value_t) v);
  size_t i;

  snprintf (buf, len, "%s", n ? n : "?");
  cap_free (n);
  for (i = 0; buf[i]; i++)
    if (buf[i] >= 'a' && buf[i] <= 'z')
      buf[i] = (char) (buf[i] - 'a' + 'A');
  return buf;
}

/* Drop from the bounding set every capability the config does not keep. */
static int
drop_bounding (uint64_t keep, shim_error_t *err)
{
  int last = (int) cap_max_bits () - 1, v;

  if (last > 63)
    last = 63;
  for (v = 0; v <= last; v++)
    if (!(keep & (1ULL << v)) && prctl (PR_CAPBSET_DROP, (unsigned long) v, 0, 0, 0) < 0)
      {
        char name[64];
        return shim_error_errno (err, "process.capabilities.bounding: drop %s", cap_name (v, name, sizeof (name)));
      }
  return 0;
}

static int
set_flags (cap_t caps, cap_flag_t flag, uint64_t mask)
{
  int last = (int) cap_max_bits () - 1, v;

  for (v = 0; v <= last && v < 64; v++)
    if (mask & (1ULL << v))
      {
        cap_value_t cv = (cap_value_t) v;
        if (cap_set_flag (caps, flag, 1, &cv, CAP_SET) < 0)
          return -1;
      }
  return 0;
}

static void
cleanup_capp (cap_t *c)
{
  if (*c)
    cap_free (*c);
}
#define cleanup_cap __attribute__ ((cleanup (cleanup_capp)))

static int
apply_caps (const struct shim_capabilities *c, shim_error_t *err)
{
  cleanup_cap cap_t caps = cap_init ();
  int last = (int) cap_max_bits () - 1, v;

  if (caps == NULL)
    return shim_error_errno (err, "process.capabilities");
  if (set_flags (caps, CAP_EFFECTIVE, c->effective) < 0 || set_flags (caps, CAP_PERMITTED, c->permitted) < 0
      || set_flags (caps, CAP_INHERITABLE, c->inheritable) < 0)
    return shim_error_errno (err, "process.capabilities");
  if (cap_set_proc (caps) < 0)
    return shim_error_errno (err, "process.capabilities: set effective, permitted and inheritable");
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
    return shim_error_errno (err, "process.capabilities.ambient: clear");
  for (v = 0; v <= last && v < 64; v++)
    if ((c->ambient & (1ULL << v)) && prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, (unsigned long) v, 0, 0) < 0)
      {
        char name[64];
        return shim_error_errno (err,
                                 "process.capabilities.ambient: raise %s (it must be permitted and "
                                 "inheritable too)",
                                 cap_name (v, name, sizeof (name)));
      }
  return 0;
}

/* Loading a filter without noNewPrivileges needs CAP_SYS_ADMIN in the
 * effective set: a uid change emptied it, keep-caps kept it permitted. */
static int
raise_sys_admin (shim_error_t *err)
{
  cleanup_cap cap_t caps = cap_get_proc ();
  cap_value_t admin = CAP_SYS_ADMIN;
  cap_flag_value_t have = CAP_CLEAR;

  if (caps == NULL || cap_get_flag (caps, admin, CAP_PERMITTED, &have) < 0)
    return shim_error_errno (err, "linux.seccomp: read the capabilities");
  if (have != CAP_SET)
    return shim_error_plain (err, EPERM,
                             "linux.seccomp: loading a filter without process.noNewPrivileges needs "
                             "CAP_SYS_ADMIN, which the runtime does not have");
  if (cap_set_flag (caps, CAP_EFFECTIVE, 1, &admin, CAP_SET) < 0 || cap_set_proc (caps) < 0)
    return shim_error_errno (err, "linux.seccomp: raise CAP_SYS_ADMIN to load the filter");
  return 0;
}

/* ---- LSM ---- */

static bool
apparmor_enabled (void)
{
  cleanup_free char *v = NULL;
  return util_read_file_at (AT_FDCWD, "/sys/module/apparmor/parameters/enabled", &v, NULL, NULL) == 0 && v[0] == 'Y';
}

static bool
selinux_enabled (void)
{
  struct statfs sfs;
  return statfs ("/sys/fs/selinux", &sfs) == 0 && sfs.f_type == SELINUX_MAGIC;
}

/* Open the file whose content becomes the label at the next exec.  Opened
 * now, from the host's /proc: the container may have none mounted. */
static int
prepare_lsm (const struct shim_process *p, struct security_state *st, shim_error_t *err)
{
  bool aa = p->apparmor_profile && p->apparmor_profile[0];
  bool se = p->selinux_label && p->selinux_label[0];
  const char *attr = "/proc/thread-self/attr/exec";

  if (aa && se)
    return shim_error_plain (err, EINVAL, "process.apparmorProfile and process.selinuxLabel: only one LSM label "
                                          "can be applied");
  if (aa)
    {
      if (!apparmor_enabled ())
        return shim_error_plain (err, ENOTSUP,
                                 "process.apparmorProfile: AppArmor is not enabled on this host, the profile "
                                 "`%s` cannot be applied",
                                 p->apparmor_profile);
      st->lsm_field = "process.apparmorProfile";
      if (asprintf (&st->lsm_value, "exec %s", p->apparmor_profile) < 0)
        return shim_error_errno (err, "%s", st->lsm_field);
      /* With LSM stacking the AppArmor file has its own directory. */
      st->lsm_fd = open ("/proc/thread-self/attr/apparmor/exec", O_WRONLY | O_CLOEXEC);
    }
  else if (se)
    {
      if (!selinux_enabled ())
        return shim_error_plain (err, ENOTSUP,
                                 "process.selinuxLabel: SELinux is not enabled on this host, the label `%s` "
                                 "cannot be applied",
                                 p->selinux_label);
      st->lsm_field = "process.selinuxLabel";
      st->lsm_value = strdup (p->selinux_label);
      if (st->lsm_value == NULL)
        return shim_error_errno (err, "%s", st->lsm_field);
    }
  else
    return 0;
  if (st->lsm_fd < 0)
    st->lsm_fd = open (attr, O_WRONLY | O_CLOEXEC);
  if (st->lsm_fd < 0)
    return shim_error_errno (err, "%s: open %s", st->lsm_field, attr);
  return 0;
}

static int
apply_lsm (struct security_state *st, shim_error_t *err)
{
  size_t len;
  if (st->lsm_fd < 0)
    return 0;
  len = strlen (st->lsm_value);
  if (write (st->lsm_fd, st->lsm_value, len) != (ssize_t) len)
    return shim_error_errno (err, "%s: set `%s` for exec", st->lsm_field, st->lsm_value);
  return 0;
}

/* ---- seccomp ---- */

static bool
distinct_arg_indexes (const struct shim_seccomp_rule *r)
{
  size_t i, j;
  for (i = 0; i < r->n_args; i++)
    for (j = 0; j < i; j++)
      if (r->args[i].index == r->args[j].index)
        return false;
  return true;
}

/* One rule per syscall name.  As runc: conditions on distinct arguments are
 * ANDed in one rule; when an argument is compared more than once, each
 * comparison is a rule of its own (libseccomp cannot AND them). */
static int
add_rule (scmp_filter_ctx ctx, const struct shim_seccomp_rule *r, size_t i, int nr, const char *name,
          shim_error_t *err)
{
  struct scmp_arg_cmp cmp[6];
  size_t k;
  int rc = 0;

  for (k = 0; k < r->n_args && k < 6; k++)
    cmp[k] = (struct scmp_arg_cmp){ .arg = r->args[k].index,
                                    .op = (enum scmp_compare) r->args[k].op,
                                    .datum_a = r->args[k].value,
                                    .datum_b = r->args[k].value_two };
  if (r->n_args == 0)
    rc = seccomp_rule_add_array (ctx, r->action, nr, 0, NULL);
  else if (distinct_arg_indexes (r))
    rc = seccomp_rule_add_array (ctx, r->action, nr, (unsigned int) r->n_args, cmp);
  else
    for (k = 0; k < r->n_args && rc == 0; k++)
      rc = seccomp_rule_add_array (ctx, r->action, nr, 1, &cmp[k]);
  if (rc < 0)
    return shim_error (err, -rc, "linux.seccomp.syscalls[%zu]: add the rule for `%s`", i, name);
  return 0;
}

static int
build_filter (const struct shim_seccomp *s, scmp_filter_ctx *out, shim_error_t *err)
{
  scmp_filter_ctx ctx = seccomp_init (s->default_action);
  size_t i, j;
  int rc;

  if (ctx == NULL)
    return shim_error_plain (err, EINVAL, "linux.seccomp: seccomp_init failed");
  *out = ctx;
  /* libseccomp would set noNewPrivileges on load by itself: only
   * process.noNewPrivileges decides that. */
  if ((rc = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0)) < 0)
    return shim_error (err, -rc, "linux.seccomp: clear libseccomp's no_new_privs");
  if ((s->flags & SECCOMP_FILTER_FLAG_TSYNC) && (rc = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_TSYNC, 1)) < 0)
    return shim_error (err, -rc, "linux.seccomp.flags: SECCOMP_FILTER_FLAG_TSYNC");
  if ((s->flags & SECCOMP_FILTER_FLAG_LOG) && (rc = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_LOG, 1)) < 0)
    return shim_error (err, -rc, "linux.seccomp.flags: SECCOMP_FILTER_FLAG_LOG");
  if ((s->flags & SECCOMP_FILTER_FLAG_SPEC_ALLOW) && (rc = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_SSB, 1)) < 0)
    return shim_error (err, -rc, "linux.seccomp.flags: SECCOMP_FILTER_FLAG_SPEC_ALLOW");
  for (i = 0; i < s->n_architectures; i++)
    if ((rc = seccomp_arch_add (ctx, s->architectures[i])) < 0 && rc != -EEXIST)
      return shim_error (err, -rc, "linux.seccomp.architectures[%zu]", i);
  for (i = 0; i < s->n_syscalls; i++)
    {
      const struct shim_seccomp_rule *r = &s->syscalls[i];
      /* libseccomp refuses a rule that does what the default does. */
      if (r->action == s->default_action)
        continue;
      for (j = 0; j < r->n_names; j++)
        {
          int nr = seccomp_syscall_resolve_name (r->names[j]);
          if (nr == __NR_SCMP_ERROR)
            {
              log_msg (LOG_DEBUG, "linux.seccomp.syscalls[%zu].names[%zu]: `%s` is not a syscall on this "
                                  "architecture: skipped", i, j, r->names[j]);
              continue;
            }
          /* The notify fd goes to the listener with sendmsg, after the
           * filter is loaded: that call must not wait for the listener. */
          if (r->action == SCMP_ACT_NOTIFY && strcmp (r->names[j], "sendmsg") == 0)
            return shim_error_plain (err, EINVAL,
                                     "linux.seccomp.syscalls[%zu]: SCMP_ACT_NOTIFY cannot apply to sendmsg, "
                                     "which hands the listener its file descriptor", i);
          /* Nor may the runtime's own reports after the load (an error of
           * a startContainer hook, say) wait for it; runc's wording. */
          if (r->action == SCMP_ACT_NOTIFY && strcmp (r->names[j], "write") == 0)
            return shim_error_plain (err, EINVAL,
                                     "linux.seccomp.syscalls[%zu]: SCMP_ACT_NOTIFY cannot be used for the write "
                                     "syscall", i);
          if (add_rule (ctx, r, i, nr, r->names[j], err) < 0)
            return -1;
        }
    }
  return 0;
}

/* ---- the -ENOSYS stub (runc's patchbpf) ----
 *
 * A syscall newer than every one the profile names is one the profile's
 * author could not know: it gets -ENOSYS, not the default action, so that
 * the C library falls back to the older call (glibc tries clone3, openat2,
 * faccessat2, ... first and only falls back on ENOSYS; a default EPERM
 * breaks it).  Placed before libseccomp's program, per architecture: a
 * syscall number above the highest the profile resolves to there returns
 * -ENOSYS, anything else goes on to the profile. */

#define X32_BIT 0x40000000U

struct stub_arch
{
  uint32_t audit;           /* AUDIT_ARCH_* as seccomp_data.arch says it */
  int64_t max_low, max_x32; /* -1: none */
};

/* runc skips the stub when unknown syscalls are let through anyway (a
 * tracer is expected to handle ENOSYS itself). */
static bool
permissive (uint32_t action)
{
  return action == SCMP_ACT_ALLOW || action == SCMP_ACT_LOG || (action & 0xffff0000U) == SCMP_ACT_TRACE (0);
}

static void
stub_note (struct stub_arch *a, size_t *n, uint32_t arch, const struct shim_seccomp *s)
{
  uint32_t audit = arch == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : arch;
  struct stub_arch *e = NULL;
  size_t i, j, k;

  for (k = 0; k < *n && e == NULL; k++)
    if (a[k].audit == audit)
      e = &a[k];
  if (e == NULL)
    {
      e = &a[(*n)++];
      *e = (struct stub_arch){ .audit = audit, .max_low = -1, .max_x32 = -1 };
    }
  for (i = 0; i < s->n_syscalls; i++)
    for (j = 0; j < s->syscalls[i].n_names; j++)
      {
        int nr = seccomp_syscall_resolve_name_arch (arch, s->syscalls[i].names[j]);
        int64_t *max = arch == SCMP_ARCH_X32 ? &e->max_x32 : &e->max_low;
        /* Negative: not a syscall there, or one multiplexed (socketcall). */
        if (nr >= 0 && nr > *max)
          *max = nr;
      }
}

/* A jump's offset from instruction PC to TARGET: conditional jumps have
 * 8 bits. */
static bool
rel (size_t pc, size_t target, unsigned char *out)
{
  if (target <= pc || target - pc - 1 > 255)
    return false;
  *out = (unsigned char) (target - pc - 1);
  return true;
}

/* The stub's instructions into P (room for 5 per architecture + 3);
 * returns how many, 0 for no stub. */
static size_t
stub_emit (const struct stub_arch *a, size_t n, struct sock_filter *p)
{
  size_t len = 1, i, pc = 0, enosys, cont;

  for (i = 0; i < n; i++)
    len += 3 + (a[i].audit == AUDIT_ARCH_X86_64) + (a[i].max_x32 >= 0);
  enosys = len + 1;
  cont = len + 2;
  p[pc++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch));
  for (i = 0; i < n; i++)
    {
      bool x86_64 = a[i].audit == AUDIT_ARCH_X86_64;
      size_t blen = 3 + x86_64 + (a[i].max_x32 >= 0);
      unsigned char t, f;

      /* Not this architecture: the next block, which loads nothing it
       * needs from here (A still holds the architecture). */
      p[pc++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, a[i].audit, 0, (unsigned char) (blen - 1));
      p[pc++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr));
      if (x86_64)
        {
          /* x32 numbers carry X32_BIT: compared apart, or left to the
           * profile when x32 is not one of its architectures. */
          if (!rel (pc, a[i].max_x32 >= 0 ? pc + 2 : cont, &t))
            return 0;
          p[pc] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, X32_BIT, t, 0);
          pc++;
        }
      if (a[i].max_low >= 0)
        {
          if (!rel (pc, enosys, &t) || !rel (pc, cont, &f))
            return 0;
          p[pc] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGT | BPF_K, (uint32_t) a[i].max_low, t, f);
        }
      else
        p[pc] = (struct sock_filter) BPF_STMT (BPF_JMP | BPF_JA, (uint32_t) (cont - pc - 1));
      pc++;
      if (a[i].max_x32 >= 0)
        {
          if (!rel (pc, enosys, &t) || !rel (pc, cont, &f))
            return 0;
          p[pc] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGT | BPF_K, (uint32_t) a[i].max_x32, t, f);
          pc++;
        }
    }
  /* An architecture the stub does not know: on to the profile. */
  p[pc++] = (struct sock_filter) BPF_STMT (BPF_JMP | BPF_JA, 1);
  p[pc++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
  return pc;
}

/* The program to load: the stub, then libseccomp's filter. */
static int
build_program (const struct shim_seccomp *s, scmp_filter_ctx ctx, struct security_state *st, shim_error_t *err)
{
  struct stub_arch arches[64];
  struct sock_filter stub[64 * 5 + 3];
  size_t n = 0, n_stub = 0, i;
  cleanup_close int mfd = util_memfd_create ("seccomp-bpf", 0, false);
  struct sock_filter *prog;
  off_t size;
  int rc;

  if (mfd < 0)
    return shim_error_errno (err, "linux.seccomp: memfd_create");
  if ((rc = seccomp_export_bpf (ctx, mfd)) < 0)
    return shim_error (err, -rc, "linux.seccomp: export the filter");
  size = lseek (mfd, 0, SEEK_END);
  if (size <= 0 || size % (off_t) sizeof (struct sock_filter) != 0)
    return shim_error_plain (err, EINVAL, "linux.seccomp: libseccomp exported %lld bytes", (long long) size);
  if (!permissive (s->default_action) && s->n_architectures < 63)
    {
      stub_note (arches, &n, seccomp_arch_native (), s);
      for (i = 0; i < s->n_architectures; i++)
        stub_note (arches, &n, s->architectures[i], s);
      n_stub = stub_emit (arches, n, stub);
    }
  prog = malloc ((size_t) size + n_stub * sizeof (struct sock_filter));
  if (prog == NULL)
    return shim_error_errno (err, "linux.seccomp");
  memcpy (prog, stub, n_stub * sizeof (struct sock_filter));
  if (pread (mfd, prog + n_stub, (size_t) size, 0) != size)
    {
      free (prog);
      return shim_error_errno (err, "linux.seccomp: read the exported filter");
    }
  st->bpf = prog;
  st->bpf_len = n_stub + (size_t) size / sizeof (struct sock_filter);
  return 0;
}

static int
gen_str (yajl_gen g, const char *s)
{
  return yajl_gen_string (g, (const unsigned char *) (s ? s : ""), strlen (s ? s : "")) == yajl_gen_status_ok
             ? 0
             : -1;
}

/* The message sent with the notify fd: runc's ContainerProcessState, so
 * listeners written for runc understand it. */
static int
listener_message (const struct shim_config *cfg, const char *id, pid_t pid, char **out)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len, i;

  if (g == NULL)
    return -1;
  if (yajl_gen_map_open (g) || gen_str (g, "ociVersion") || gen_str (g, "1.0.2") || gen_str (g, "fds")
      || yajl_gen_array_open (g) || gen_str (g, "seccompFd") || yajl_gen_array_close (g) || gen_str (g, "pid")
      || yajl_gen_integer (g, pid) || gen_str (g, "metadata") || gen_str (g, cfg->seccomp->listener_metadata)
      || gen_str (g, "state") || yajl_gen_map_open (g) || gen_str (g, "ociVersion")
      || gen_str (g, cfg->oci_version) || gen_str (g, "id") || gen_str (g, id) || gen_str (g, "status")
      || gen_str (g, "creating") || gen_str (g, "pid") || yajl_gen_integer (g, pid) || gen_str (g, "bundle")
      || gen_str (g, cfg->bundle) || gen_str (g, "annotations") || yajl_gen_map_open (g))
    return -1;
  for (i = 0; i < cfg->n_annotations; i++)
    if (gen_str (g, cfg->annotations[i].key) || gen_str (g, cfg->annotations[i].value))
      return -1;
  if (yajl_gen_map_close (g) || yajl_gen_map_close (g) || yajl_gen_map_close (g)
      || yajl_gen_get_buf (g, &buf, &len))
    return -1;
  *out = strndup ((const char *) buf, len);
  return *out ? 0 : -1;
}

/* Connect to the listener now, while its path is in view (the container's
 * root hides it), and find our pid as the host sees it: /proc is still the
 * host's. */
static int
prepare_listener (const struct shim_config *cfg, const char *id, struct security_state *st, shim_error_t *err)
{
  const char *path = cfg->seccomp->listener_path;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  char self[32] = "";
  ssize_t n;

  if (strlen (path) >= sizeof (sa.sun_path))
    return shim_error_plain (err, ENAMETOOLONG, "linux.seccomp.listenerPath `%s`: too long for a socket", path);
  memcpy (sa.sun_path, path, strlen (path) + 1);
  st->listener_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (st->listener_fd < 0)
    return shim_error_errno (err, "linux.seccomp.listenerPath: socket");
  if (connect (st->listener_fd, (struct sockaddr *) &sa, sizeof (sa)) < 0)
    return shim_error_errno (err, "linux.seccomp.listenerPath `%s`: failed to connect with seccomp agent", path);
  n = readlink ("/proc/self", self, sizeof (self) - 1);
  if (n < 0)
    return shim_error_errno (err, "linux.seccomp.listenerPath: readlink /proc/self");
  self[n] = '\0';
  if (listener_message (cfg, id, (pid_t) atoi (self), &st->listener_msg) < 0)
    return shim_error_plain (err, ENOMEM, "linux.seccomp.listenerPath: build the container state");
  return 0;
}

static int
send_notify_fd (const struct shim_config *cfg, struct security_state *st, int fd, shim_error_t *err)
{
  union
  {
    struct cmsghdr h;
    char buf[CMSG_SPACE (sizeof (int))];
  } u = { 0 };
  struct iovec iov = { .iov_base = st->listener_msg, .iov_len = strlen (st->listener_msg) };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof (u.buf) };
  struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
  ssize_t r;

  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof (int));
  do
    r = sendmsg (st->listener_fd, &msg, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return shim_error_errno (err, "linux.seccomp.listenerPath `%s`: send the notify fd", cfg->seccomp->listener_path);
  return 0;
}

static int
load_filter (const struct shim_config *cfg, struct security_state *st, shim_error_t *err)
{
  struct sock_fprog prog = { .len = (unsigned short) st->bpf_len, .filter = st->bpf };
  unsigned int flags = cfg->seccomp->flags;
  long r;

  if (st->bpf_len > BPF_MAXINSNS)
    return shim_error_plain (err, E2BIG, "linux.seccomp: the filter has %zu instructions, more than the kernel's %d",
                             st->bpf_len, BPF_MAXINSNS);
  if (cfg->seccomp->uses_notify)
    /* A listener and TSYNC together need TSYNC_ESRCH (seccomp(2)). */
    flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER | (flags & SECCOMP_FILTER_FLAG_TSYNC ? SECCOMP_FILTER_FLAG_TSYNC_ESRCH : 0);
  r = syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (r < 0)
    return shim_error_errno (err, "linux.seccomp: load the filter");
  /* The notify fd is close-on-exec (the kernel makes it so): the workload
   * never sees it. */
  if (cfg->seccomp->uses_notify)
    return send_notify_fd (cfg, st, (int) r, err);
  return 0;
}

/* ---- the two steps ---- */

int
security_prepare (const struct shim_config *cfg, const char *id, struct security_state *st, shim_error_t *err)
{
  if (prepare_lsm (&cfg->process, st, err) < 0)
    return -1;
  if (cfg->seccomp)
    {
      if (build_filter (cfg->seccomp, (scmp_filter_ctx *) &st->seccomp, err) < 0
          || build_program (cfg->seccomp, st->seccomp, st, err) < 0)
        return -1;
      if (cfg->seccomp->uses_notify && prepare_listener (cfg, id, st, err) < 0)
        return -1;
    }
  return 0;
}

int
security_drop_bounding (const struct shim_config *cfg, shim_error_t *err)
{
  if (drop_bounding (cfg->process.caps.bounding, err) < 0)
    return -1;
  /* Reset by the exec; nothing between here and there needs it undone. */
  if (prctl (PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
    return shim_error_errno (err, "process.capabilities: prctl(PR_SET_KEEPCAPS)");
  return 0;
}

int
security_apply (const struct shim_config *cfg, struct security_state *st, shim_error_t *err)
{
  bool early = st->seccomp && !cfg->process.no_new_privileges;

  if (st->applied)
    return 0;
  st->applied = true;
  if (apply_lsm (st, err) < 0)
    return -1;
  if (early && (raise_sys_admin (err) < 0 || load_filter (cfg, st, err) < 0))
    return -1;
  if (apply_caps (&cfg->process.caps, err) < 0)
    return -1;
  if (st->seccomp && !early && load_filter (cfg, st, err) < 0)
    return -1;
  return 0;
}

void
security_state_release (struct security_state *st)
{
  if (st->seccomp)
    seccomp_release (st->seccomp);
  st->seccomp = NULL;
  free (st->bpf);
  st->bpf = NULL;
  if (st->listener_fd >= 0)
    close (st->listener_fd);
  if (st->lsm_fd >= 0)
    close (st->lsm_fd);
  st->listener_fd = st->lsm_fd = -1;
  free (st->listener_msg);
  free (st->lsm_value);
  st->listener_msg = st->lsm_value = NULL;
}

/* ---- the binary the container can reach: read-only, or a sealed copy ---- */

/* F_SEAL_FUTURE_WRITE (Linux 5.1) refuses every write, ftruncate and
 * writable mapping from then on, which is all the copy needs: nothing has
 * it mapped.  F_SEAL_WRITE would also wait for pages still referenced, and
 * the kernel gives up on that wait with EBUSY after ~150 ms or at once when
 * a signal is pending (mm/memfd.c, memfd_wait_for_pins): pages sendfile just
 * wrote can still sit in another CPU's LRU batch, so it failed at random
 * under load.  Kernels before 5.1 get F_SEAL_WRITE. */
#define SEALS_BASE (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW)

static int
sealed (int seals)
{
  return seals >= 0 && (seals & SEALS_BASE) == SEALS_BASE && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) != 0;
}

/* The bytes of the ELF file the kernel and ld.so read: up to the end of the
 * last PT_LOAD segment.  The debug sections and the section headers after
 * it would only cost memory in every copy (measured: 226 KiB of shim's
 * 858 KiB with -g); 0 if the file does not look like our ELF. */
static off_t
loaded_size (int fd, off_t size)
{
  Elf64_Ehdr eh;
  off_t end = 0;
  int i;

  if (pread (fd, &eh, sizeof (eh), 0) != (ssize_t) sizeof (eh) || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0
      || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof (Elf64_Phdr))
    return 0;
  for (i = 0; i < eh.e_phnum; i++)
    {
      Elf64_Phdr ph;
      if (pread (fd, &ph, sizeof (ph), (off_t) (eh.e_phoff + (Elf64_Off) i * sizeof (ph))) != (ssize_t) sizeof (ph))
        return 0;
      if (ph.p_type == PT_LOAD && (off_t) (ph.p_offset + ph.p_filesz) > end)
        end = (off_t) (ph.p_offset + ph.p_filesz);
    }
  return end > 0 && end <= size ? end : 0;
}

/* A test may take the memfd copy where the read-only mount would do. */
#define TEST_NO_RO_EXEC_ENV "SHIM_TEST_NO_RO_EXEC"

/* Re-exec EXE through a detached, read-only bind mount of it: a clone of
 * its mount that no namespace holds (open_tree), made read-only
 * (mount_setattr).  /proc/PID/exe then leads through that mount, and an
 * open for writing fails with EROFS, as on a read-only bind of the binary
 * over itself.  The exec closes TREE (close-on-exec), which dissolves the
 * clone's anonymous namespace: the mount then belongs to none, and neither
 * mount_setattr nor a remount can reach it, even as root (EINVAL,
 * measured on 6.18).  Nothing is copied: the mount costs two syscalls
 * where the copy cost a megabyte of page cache per start.  Returns only if
 * the kernel or the caller's privilege refuses (open_tree's clone needs
 * CAP_SYS_ADMIN over the mount namespace). */
static void
reexec_read_only (int exe, char **argv)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
  const char *no = getenv (TEST_NO_RO_EXEC_ENV);
  cleanup_close int tree = -1;

  if (no && *no)
    return;
  tree = open_tree (exe, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (tree < 0 || mount_setattr (tree, "", AT_EMPTY_PATH, &attr, sizeof (attr)) < 0)
    return;
  syscall (SYS_execveat, tree, "", argv, environ, AT_EMPTY_PATH);
}

int
security_reexec_protected (char **argv, shim_error_t *err)
{
  cleanup_close int exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_close int copy = -1;
  struct statvfs sfs;
  struct stat st;
  off_t off = 0, len;
  int seals;

  if (exe < 0)
    return shim_error_errno (err, "open /proc/self/exe");
  seals = fcntl (exe, F_GET_SEALS);
  if (sealed (seals))
    return 0;
  /* A binary on a read-only mount (a read-only bind of it over itself,
   * runc's advice before 1.2, or the detached one below) cannot be opened
   * for writing through /proc/PID/exe either: the open goes through that
   * mount and fails with EROFS.  A container cannot remount a mount of the
   * host's namespace, nor one that no namespace holds. */
  if (fstatvfs (exe, &sfs) == 0 && (sfs.f_flag & ST_RDONLY))
    return 0;
  reexec_read_only (exe, argv);
  /* Else a sealed memfd copy. */
  if (fstat (exe, &st) < 0)
    return shim_error_errno (err, "stat /proc/self/exe");
  len = loaded_size (exe, st.st_size);
  if (len == 0)
    len = st.st_size;
  copy = util_memfd_create ("shim", MFD_ALLOW_SEALING, true);
  if (copy < 0)
    return shim_error_errno (err, "memfd_create for a sealed copy of the runtime%s",
                             errno == EACCES ? " (vm.memfd_noexec is 2 in this pid namespace: no "
                                               "executable memfd; put shim on a read-only mount)"
                                             : "");
  while (off < len)
    {
      ssize_t n = sendfile (copy, exe, &off, (size_t) (len - off));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return shim_error_errno (err, "copy the runtime into its sealed memfd");
    }
  if (fcntl (copy, F_ADD_SEALS, SEALS_BASE | F_SEAL_FUTURE_WRITE) < 0
      && (errno != EINVAL || fcntl (copy, F_ADD_SEALS, SEALS_BASE | F_SEAL_WRITE) < 0))
    return shim_error_errno (err, "seal the runtime's memfd copy (F_ADD_SEALS)");
  /* Close-on-exec is fine for an ELF binary: the kernel has it open by the
   * time it closes the fds. */
  syscall (SYS_execveat, copy, "", argv, environ, AT_EMPTY_PATH);
  return shim_error_errno (err, "execveat the runtime's sealed copy");
}
