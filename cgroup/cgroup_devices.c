/* SPDX-License-Identifier: Apache-2.0 */
/* How a device access is decided, as runc and crun do on cgroup v2 (both
 * measured against their sources, not their docs):
 *
 *  1. runc's default list always allows: c *:* m, b *:* m, and rwm on
 *     /dev/null 1:3, zero 1:5, full 1:7, random 1:8, urandom 1:9, tty 5:0,
 *     ptmx 5:2 and the pty slaves 136:*.  runc appends it after the
 *     config's rules, crun checks it before them: either way a config
 *     cannot deny these (`deny c 1:3 w` changes nothing under runc).
 *  2. Then the config's rules, the last matching one first: for each
 *     requested access bit (r, w, m), the last rule whose type, major and
 *     minor match and whose access has that bit decides it.  This is what
 *     runc's cgroup v1 emulator computes, and it is stricter than crun,
 *     whose rule must cover the whole request to match (there an open for
 *     read+write slips past a `deny ... w` to an earlier allow).
 *  3. Nothing decided: denied.  An empty list therefore allows only (1).
 *  4. A request for no access bit (access(2) with F_OK) is allowed when
 *     an allow rule matches the device, whatever its access.
 *
 * Type `a` matches both types; major or minor -1 (or left out) matches any.
 * The kernel asks with the type in the low 16 bits of access_type, the
 * access (BPF_DEVCG_ACC_*, the same bits as CGROUP_DEV_*) in the high 16. */
#include "cgroup/cgroup_devices.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

static const struct cgroup_device_rule default_allow[] = {
  { true, 'c', -1, -1, CGROUP_DEV_MKNOD },
  { true, 'b', -1, -1, CGROUP_DEV_MKNOD },
  { true, 'c', 1, 3, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
  { true, 'c', 1, 8, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
  { true, 'c', 1, 7, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
  { true, 'c', 5, 0, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
  { true, 'c', 1, 5, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
  { true, 'c', 1, 9, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
  { true, 'c', 136, -1, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
  { true, 'c', 5, 2, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD },
};
#define N_DEFAULT (sizeof (default_allow) / sizeof (default_allow[0]))

const struct cgroup_device_rule *
cgroup_devices_defaults (size_t *n)
{
  *n = N_DEFAULT;
  return default_allow;
}

/* Registers: R1 the context (then scratch), R2 type, R3 the access bits
 * not decided yet, R4 major, R5 minor. */
#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define NEXT_BLOCK 0x7fff /* placeholder offset: patched to the block's end */

struct prog
{
  struct bpf_insn *insns;
  size_t len, cap;
};

static int
emit (struct prog *p, struct bpf_insn insn)
{
  if (p->len == p->cap)
    {
      size_t cap = p->cap ? p->cap * 2 : 64;
      struct bpf_insn *n = realloc (p->insns, cap * sizeof (*n));
      if (n == NULL)
        return -1;
      p->insns = n;
      p->cap = cap;
    }
  p->insns[p->len++] = insn;
  return 0;
}

/* One rule: every "does not match" jump goes to the next block.  JMP32
 * compares the 32-bit device numbers as unsigned (a 64-bit JNE would
 * sign-extend an immediate above 2^31). */
static int
emit_rule (struct prog *p, const struct cgroup_device_rule *r)
{
  size_t start = p->len, i;
  int rc = 0;
  int32_t acc = (int32_t) r->access;

  if (r->type != 'a')
    rc |= emit (p, INSN (BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_2, 0, NEXT_BLOCK,
                         r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR));
  if (r->major >= 0)
    rc |= emit (p, INSN (BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_4, 0, NEXT_BLOCK, (int32_t) (uint32_t) r->major));
  if (r->minor >= 0)
    rc |= emit (p, INSN (BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_5, 0, NEXT_BLOCK, (int32_t) (uint32_t) r->minor));
  /* An access asking for no bit at all (access(2) with F_OK): allowed by
   * any allow rule that matches the device, as the v1 controller's
   * exceptions do; there is nothing for a deny rule to refuse. */
  if (r->allow)
    {
      rc |= emit (p, INSN (BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_3, 0, 2, 0));
      rc |= emit (p, INSN (BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1));
      rc |= emit (p, INSN (BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    }
  /* Does it decide any of the bits still open? */
  rc |= emit (p, INSN (BPF_ALU | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_3, 0, 0));
  rc |= emit (p, INSN (BPF_ALU | BPF_AND | BPF_K, BPF_REG_1, 0, 0, acc));
  rc |= emit (p, INSN (BPF_JMP32 | BPF_JEQ | BPF_K, BPF_REG_1, 0, NEXT_BLOCK, 0));
  if (r->allow)
    {
      /* Those bits are allowed; done when none is left open. */
      rc |= emit (p, INSN (BPF_ALU | BPF_AND | BPF_K, BPF_REG_3, 0, 0, ~acc));
      rc |= emit (p, INSN (BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_3, 0, NEXT_BLOCK, 0));
      rc |= emit (p, INSN (BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1));
    }
  else
    rc |= emit (p, INSN (BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0));
  rc |= emit (p, INSN (BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  if (rc)
    return -1;
  for (i = start; i < p->len; i++)
    if (p->insns[i].off == NEXT_BLOCK)
      p->insns[i].off = (int16_t) (p->len - (i + 1));
  return 0;
}

int
cgroup_devices_program (const struct cgroup_device_rule *rules, size_t n, struct bpf_insn **out, size_t *len,
                        shim_error_t *err)
{
  struct prog p = { 0 };
  int rc = 0;
  size_t i;

  /* A block is at most 14 instructions; jumps reach 32767 ahead, and the
   * kernel takes a million instructions: 2000 rules are plenty. */
  if (n > 2000)
    return shim_error_plain (err, E2BIG, "linux.resources.devices: %zu rules, at most 2000", n);
  rc |= emit (&p, INSN (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, 0, 0));
  rc |= emit (&p, INSN (BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff));
  rc |= emit (&p, INSN (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1, 0, 0));
  rc |= emit (&p, INSN (BPF_ALU | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 16));
  rc |= emit (&p, INSN (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_4, BPF_REG_1, 4, 0));
  rc |= emit (&p, INSN (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_5, BPF_REG_1, 8, 0));
  for (i = 0; i < N_DEFAULT && rc == 0; i++)
    rc |= emit_rule (&p, &default_allow[i]);
  for (i = n; i > 0 && rc == 0; i--)
    rc |= emit_rule (&p, &rules[i - 1]);
  rc |= emit (&p, INSN (BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0));
  rc |= emit (&p, INSN (BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  if (rc)
    {
      free (p.insns);
      return shim_error_errno (err, "linux.resources.devices");
    }
  *out = p.insns;
  *len = p.len;
  return 0;
}

static int
sys_bpf (int cmd, union bpf_attr *attr)
{
  return (int) syscall (SYS_bpf, cmd, attr, sizeof (*attr));
}

static int
load (const struct bpf_insn *insns, size_t len, shim_error_t *err)
{
  union bpf_attr attr;
  char log[4096];
  int fd;

  memset (&attr, 0, sizeof (attr));
  attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  attr.insns = (uint64_t) (uintptr_t) insns;
  attr.insn_cnt = (uint32_t) len;
  attr.license = (uint64_t) (uintptr_t) "Apache-2.0";
  fd = sys_bpf (BPF_PROG_LOAD, &attr);
  if (fd >= 0)
    return fd;
  /* Again with the verifier's log, for the message. */
  log[0] = '\0';
  attr.log_level = 1;
  attr.log_buf = (uint64_t) (uintptr_t) log;
  attr.log_size = sizeof (log);
  fd = sys_bpf (BPF_PROG_LOAD, &attr);
  if (fd >= 0)
    return fd;
  return shim_error_errno (err, "linux.resources.devices: load the device cgroup program (bpf BPF_PROG_LOAD%s%.200s)",
                           log[0] ? "; verifier: " : "", log);
}

/* The device programs attached to the cgroup itself, before ours. */
static int
attached (int cgroup_fd, uint32_t *ids, uint32_t *n, shim_error_t *err)
{
  union bpf_attr attr;

  memset (&attr, 0, sizeof (attr));
  attr.query.target_fd = (uint32_t) cgroup_fd;
  attr.query.attach_type = BPF_CGROUP_DEVICE;
  attr.query.prog_ids = (uint64_t) (uintptr_t) ids;
  attr.query.prog_cnt = *n;
  if (sys_bpf (BPF_PROG_QUERY, &attr) < 0)
    return shim_error_errno (err, "linux.resources.devices: list the device programs of the cgroup (bpf BPF_PROG_QUERY)");
  *n = attr.query.prog_cnt;
  return 0;
}

int
cgroup_devices_apply (int cgroup_fd, const struct cgroup_device_rule *rules, size_t n, shim_error_t *err)
{
  cleanup_free struct bpf_insn *insns = NULL;
  cleanup_close int prog = -1;
  union bpf_attr attr;
  uint32_t old[64], n_old = 64, i;
  size_t len = 0;

  if (cgroup_devices_program (rules, n, &insns, &len, err) < 0)
    return -1;
  prog = load (insns, len, err);
  if (prog < 0)
    return -1;
  /* The kernel allows 64 programs per cgroup and attach point. */
  if (attached (cgroup_fd, old, &n_old, err) < 0)
    return -1;
  /* BPF_F_ALLOW_MULTI, as runc and crun: a program of a descendant cgroup
   * then runs too (and a systemd one above stays in force). */
  memset (&attr, 0, sizeof (attr));
  attr.target_fd = (uint32_t) cgroup_fd;
  attr.attach_bpf_fd = (uint32_t) prog;
  attr.attach_type = BPF_CGROUP_DEVICE;
  attr.attach_flags = BPF_F_ALLOW_MULTI;
  if (sys_bpf (BPF_PROG_ATTACH, &attr) < 0)
    return shim_error_errno (err, "linux.resources.devices: attach the device program to the cgroup (bpf BPF_PROG_ATTACH)");
  log_msg (LOG_DEBUG, "cgroup: device program of %zu instructions attached (%zu rules of the config)", len, n);
  /* Then the ones of an adopted cgroup go: ours already guards it. */
  for (i = 0; i < n_old; i++)
    {
      cleanup_close int fd = -1;
      memset (&attr, 0, sizeof (attr));
      attr.prog_id = old[i];
      fd = sys_bpf (BPF_PROG_GET_FD_BY_ID, &attr);
      if (fd < 0)
        continue;
      memset (&attr, 0, sizeof (attr));
      attr.target_fd = (uint32_t) cgroup_fd;
      attr.attach_bpf_fd = (uint32_t) fd;
      attr.attach_type = BPF_CGROUP_DEVICE;
      if (sys_bpf (BPF_PROG_DETACH, &attr) < 0 && errno != ENOENT)
        return shim_error_errno (err, "linux.resources.devices: detach the cgroup's earlier device program %u", old[i]);
    }
  return 0;
}
