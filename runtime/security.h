/* SPDX-License-Identifier: Apache-2.0 */
/* What the container's init may do: capabilities (libcap), the seccomp
 * filter (libseccomp) and the LSM label (AppArmor, SELinux).  Two steps,
 * called from the init's setup: security_prepare() while the host's
 * filesystem is still in view, security_apply() right before exec. */
#ifndef SHIM_SECURITY_H
#define SHIM_SECURITY_H

#include "runtime/config.h"

struct security_state
{
  void *seccomp;      /* scmp_filter_ctx, or NULL for no filter */
  void *bpf;          /* the program loaded: struct sock_filter[bpf_len] */
  size_t bpf_len;
  int listener_fd;    /* connected to linux.seccomp.listenerPath, or -1 */
  char *listener_msg; /* the container state sent with the notify fd */
  int lsm_fd;         /* /proc/thread-self/attr/.../exec, or -1 */
  char *lsm_value;    /* what is written to it */
  const char *lsm_field;
  bool applied;       /* security_apply done: a second call does nothing */
};

#define SECURITY_STATE_INIT { .seccomp = NULL, .listener_fd = -1, .lsm_fd = -1 }

/* Before the rootfs is entered: refuse an LSM label the host cannot apply,
 * build the seccomp filter (every name checked), connect to the seccomp
 * listener.  ID is the container's, for the listener. */
int security_prepare (const struct shim_config *cfg, const char *id, struct security_state *st,
                      shim_error_t *err);

/* Before the uid change: drop the capability bounding set to the config's
 * and keep the permitted set across the change.  After the createContainer
 * hooks, which run with the runtime's capabilities (as runc's: a hook that
 * bind-mounts into the rootfs needs CAP_SYS_ADMIN). */
int security_drop_bounding (const struct shim_config *cfg, shim_error_t *err);

/* After the uid change and noNewPrivileges, right before exec: the LSM
 * label for exec, the capability sets, the ambient set, and the seccomp
 * filter, last. */
int security_apply (const struct shim_config *cfg, struct security_state *st, shim_error_t *err);

void security_state_release (struct security_state *st);

/* CVE-2019-5736: a container process can execute /proc/self/exe of the
 * runtime process that execs it (a script whose interpreter is
 * /proc/self/exe) and, once the runtime has exited, write through it to
 * the runtime's binary on the host.  The commands that start container
 * processes therefore re-exec themselves, with ARGV, from the binary seen
 * through a detached read-only mount of it, or, where that mount cannot
 * be made, from a sealed memfd copy: either is all /proc/self/exe can ever
 * lead to, and neither can be written.  Returns 0 at once when already
 * running so, or from a binary on a read-only mount; otherwise does not
 * return unless it fails. */
int security_reexec_protected (char **argv, shim_error_t *err);

#endif
