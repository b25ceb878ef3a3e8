/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup_devices_program(): the generated device cgroup program, run here
 * by a small interpreter of the instructions it uses, against a table of
 * rules and requests whose answers follow the rules in cgroup_devices.c
 * (runc's default list, then the last matching rule per access bit, then
 * deny).  No kernel needed; the VM and host suites load the real thing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup_devices.h"
#include "tap.h"

#define R CGROUP_DEV_READ
#define W CGROUP_DEV_WRITE
#define M CGROUP_DEV_MKNOD

/* Runs PROG on a request; returns r0 (0 deny, 1 allow) or -1 on an
 * instruction it does not know, a jump backwards or out of the program. */
static int
run (const struct bpf_insn *p, size_t len, int type, unsigned access, uint32_t major, uint32_t minor)
{
  uint32_t ctx[3] = { (uint32_t) type | (access << 16), major, minor };
  uint64_t reg[11] = { 0 };
  size_t pc = 0;

  while (pc < len)
    {
      const struct bpf_insn *i = &p[pc++];
      uint32_t imm = (uint32_t) i->imm;
      switch (i->code)
        {
        case BPF_LDX | BPF_W | BPF_MEM:
          if (i->src_reg != BPF_REG_1 || i->off < 0 || i->off > 8 || i->off % 4)
            return -1;
          reg[i->dst_reg] = ctx[i->off / 4];
          break;
        case BPF_ALU | BPF_AND | BPF_K:
          reg[i->dst_reg] = (uint32_t) reg[i->dst_reg] & imm;
          break;
        case BPF_ALU | BPF_RSH | BPF_K:
          reg[i->dst_reg] = (uint32_t) reg[i->dst_reg] >> imm;
          break;
        case BPF_ALU | BPF_MOV | BPF_X:
          reg[i->dst_reg] = (uint32_t) reg[i->src_reg];
          break;
        case BPF_ALU64 | BPF_MOV | BPF_K:
          reg[i->dst_reg] = (uint64_t) (int64_t) i->imm;
          break;
        case BPF_JMP32 | BPF_JNE | BPF_K:
        case BPF_JMP32 | BPF_JEQ | BPF_K:
          if (i->off < 0 || pc + (size_t) i->off > len)
            return -1;
          if (((uint32_t) reg[i->dst_reg] != imm) == ((i->code & 0xf0) == BPF_JNE))
            pc += (size_t) i->off;
          break;
        case BPF_JMP | BPF_EXIT:
          return (int) reg[BPF_REG_0];
        default:
          return -1;
        }
    }
  return -1;
}

struct rq
{
  char type;
  uint32_t major, minor;
  unsigned access;
  int want;
};

static void
check (const char *what, const struct cgroup_device_rule *rules, size_t n, const struct rq *rq, size_t n_rq)
{
  struct bpf_insn *p = NULL;
  size_t len = 0, i;
  shim_error_t err = NULL;

  if (cgroup_devices_program (rules, n, &p, &len, &err) < 0)
    {
      ok (0, "%s: program built: %s", what, err->msg);
      shim_error_release (&err);
      return;
    }
  for (i = 0; i < n_rq; i++)
    {
      int got = run (p, len, rq[i].type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR, rq[i].access,
                     rq[i].major, rq[i].minor);
      is_int (got, rq[i].want, "%s: %c %u:%u %s%s%s -> %s", what, rq[i].type, rq[i].major, rq[i].minor,
              rq[i].access & R ? "r" : "", rq[i].access & W ? "w" : "", rq[i].access & M ? "m" : "",
              rq[i].want ? "allowed" : "denied");
    }
  free (p);
}

#define CHECK(what, rules, ...)                                                                    \
  do                                                                                               \
    {                                                                                              \
      static const struct rq rq_[] = { __VA_ARGS__ };                                              \
      check (what, rules, sizeof (rules) / sizeof (rules[0]), rq_, sizeof (rq_) / sizeof (rq_[0])); \
    }                                                                                              \
  while (0)

int
main (void)
{
  /* runc's default list, nothing else. */
  {
    static const struct cgroup_device_rule none[1];
    static const struct rq rq[] = {
      { 'c', 1, 3, R | W, 1 },  { 'c', 1, 5, R, 1 },      { 'c', 1, 7, W, 1 },  { 'c', 1, 8, R, 1 },
      { 'c', 1, 9, R, 1 },      { 'c', 5, 0, R | W, 1 },  { 'c', 5, 2, R | W, 1 }, { 'c', 136, 7, R | W, 1 },
      { 'c', 1, 11, R, 0 },     { 'c', 1, 11, M, 1 },     { 'b', 8, 0, M, 1 },  { 'b', 8, 0, R, 0 },
      { 'b', 1, 3, R, 0 },      { 'c', 1, 1, R | W, 0 },
    };
    check ("no rules", none, 0, rq, sizeof (rq) / sizeof (rq[0]));
  }
  {
    static const struct cgroup_device_rule r[] = { { false, 'a', -1, -1, R | W | M } };
    CHECK ("deny all", r, { 'c', 1, 3, W, 1 }, { 'c', 1, 11, R, 0 }, { 'c', 1, 11, M, 1 }, { 'b', 8, 0, R, 0 });
  }
  {
    static const struct cgroup_device_rule r[] = { { false, 'a', -1, -1, R | W | M }, { true, 'c', 1, 11, R | W } };
    CHECK ("deny all, allow c 1:11 rw", r, { 'c', 1, 11, R, 1 }, { 'c', 1, 11, W, 1 }, { 'c', 1, 11, R | W, 1 },
           { 'c', 1, 12, R, 0 }, { 'b', 1, 11, R, 0 });
  }
  {
    static const struct cgroup_device_rule r[] = { { true, 'c', 1, 11, R | W }, { false, 'c', 1, 11, W } };
    /* crun would let the read+write open through; runc's emulator not. */
    CHECK ("allow c 1:11 rw, then deny w", r, { 'c', 1, 11, R, 1 }, { 'c', 1, 11, W, 0 },
           { 'c', 1, 11, R | W, 0 });
  }
  {
    static const struct cgroup_device_rule r[] = { { false, 'c', 1, 11, W }, { true, 'c', 1, 11, R | W } };
    CHECK ("deny c 1:11 w, then allow rw: the last rule wins", r, { 'c', 1, 11, R | W, 1 }, { 'c', 1, 11, W, 1 });
  }
  {
    static const struct cgroup_device_rule r[] = { { true, 'a', -1, -1, R | W | M }, { false, 'c', 1, 3, W },
                                                 { false, 'c', 1, 11, W } };
    CHECK ("allow all, deny /dev/null and 1:11 writes", r, { 'c', 1, 3, W, 1 }, { 'c', 1, 11, W, 0 },
           { 'c', 1, 11, R, 1 }, { 'b', 8, 0, R | W, 1 });
  }
  {
    static const struct cgroup_device_rule r[] = { { true, 'c', -1, -1, R }, { true, 'c', 4, -1, R | W } };
    CHECK ("wildcards", r, { 'c', 4, 64, R | W, 1 }, { 'c', 7, 64, R, 1 }, { 'c', 7, 64, W, 0 },
           { 'b', 4, 64, R, 0 });
  }
  {
    static const struct cgroup_device_rule r[] = { { true, 'c', 3000000000LL, 1, R } };
    CHECK ("a major above 2^31 is compared unsigned", r, { 'c', 3000000000u, 1, R, 1 },
           { 'c', 3000000001u, 1, R, 0 }, { 'c', 852516352u, 1, R, 0 });
  }
  {
    static const struct cgroup_device_rule r[] = { { false, 'a', -1, -1, R | W | M }, { true, 'c', 1, 11, R | W } };
    /* access(F_OK): no access bit asked for.  runc's defaults (c *:* m,
     * b *:* m) match every device, so a deny-all config still allows it. */
    CHECK ("no access bit: allowed by a matching allow rule", r, { 'c', 1, 11, 0, 1 }, { 'c', 1, 3, 0, 1 },
           { 'b', 8, 0, 0, 1 });
  }
  {
    static const struct cgroup_device_rule r[] = { { true, 'b', 8, 0, R | M } };
    CHECK ("block device", r, { 'b', 8, 0, R, 1 }, { 'b', 8, 0, R | W, 0 }, { 'c', 8, 0, R, 0 });
  }
  {
    struct cgroup_device_rule *many = calloc (2001, sizeof (*many));
    struct bpf_insn *p = NULL;
    size_t len;
    shim_error_t err = NULL;
    ok (many && cgroup_devices_program (many, 2001, &p, &len, &err) < 0, "2001 rules are refused");
    is_str (err ? err->msg : NULL, "linux.resources.devices: 2001 rules, at most 2000", "with a message");
    shim_error_release (&err);
    free (many);
  }
  return done_testing ();
}
