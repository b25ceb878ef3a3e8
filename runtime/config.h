/* SPDX-License-Identifier: Apache-2.0 */
/* config.json, parsed once with yajl into one typed struct and validated
 * before anything is created.  Everything later reads this struct only. */
#ifndef SHIM_CONFIG_H
#define SHIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "common/error.h"
#include "common/util.h"


struct shim_rlimit
{
  int resource; /* RLIMIT_* */
  uint64_t soft, hard;
};

/* Mount options split into what mount(2) takes as flags, what is applied
 * after the mount as a propagation change, and the filesystem's data. */
struct shim_mount
{
  char *destination; /* absolute, inside the container */
  char *type;        /* NULL for bind mounts */
  char *source;      /* NULL when the spec leaves it out */
  unsigned long flags;       /* MS_* set by options, including MS_BIND/MS_REC */
  unsigned long propagation; /* MS_PRIVATE/MS_SHARED/... (| MS_REC), 0 for none */
  char *data;                /* comma-joined filesystem options, or NULL */
  /* The recursive options (rro, rnosuid, ...): MOUNT_ATTR_* set and
   * cleared on the whole tree with mount_setattr(AT_RECURSIVE). */
  unsigned long long rec_attr_set, rec_attr_clr;
  bool is_bind;
};

/* One line of linux.uidMappings / gidMappings. */
struct shim_idmap
{
  uint32_t container_id, host_id, size;
};

/* linux.devices[]: a node created in the container's /dev. */
struct shim_device
{
  char *path;     /* absolute, inside the container */
  char type;      /* 'c' (also for "u"), 'b' or 'p' */
  uint32_t major, minor;
  bool has_file_mode, has_uid, has_gid;
  mode_t file_mode; /* permission bits only */
  uint32_t uid, gid;
};

struct shim_namespace
{
  int type;   /* CLONE_NEW* */
  char *path; /* join this one instead of creating; NULL to create */
};


/* process.capabilities as masks of 1 << CAP_*.  An absent set (or an absent
 * process.capabilities) is empty, as in runc: the process gets no
 * capabilities it is not granted. */
struct shim_capabilities
{
  uint64_t bounding, effective, inheritable, permitted, ambient;
};

/* linux.seccomp, with names turned into libseccomp's values (the types are
 * plain integers so that this header does not need seccomp.h). */
struct shim_seccomp_arg
{
  unsigned int index;        /* 0..5 */
  uint64_t value, value_two; /* MASKED_EQ: value is the mask, valueTwo the datum */
  int op;                    /* enum scmp_compare */
};

struct shim_seccomp_rule
{
  char **names; /* NULL-terminated; resolved when the filter is built */
  size_t n_names;
  uint32_t action; /* SCMP_ACT_*, the errno included */
  struct shim_seccomp_arg *args;
  size_t n_args;
};

struct shim_seccomp
{
  uint32_t default_action; /* SCMP_ACT_*, the errno included */
  uint32_t *architectures; /* SCMP_ARCH_* */
  size_t n_architectures;
  unsigned int flags; /* SECCOMP_FILTER_FLAG_* */
  char *listener_path;     /* NULL unless given */
  char *listener_metadata; /* NULL unless given */
  struct shim_seccomp_rule *syscalls;
  size_t n_syscalls;
  bool uses_notify; /* some action is SCMP_ACT_NOTIFY */
};

struct shim_process
{
  bool terminal;
  unsigned short console_height, console_width; /* 0: not given */
  char **args; /* NULL-terminated */
  size_t n_args;
  char **env; /* NULL-terminated */
  size_t n_env;
  char *cwd;
  uid_t uid;
  gid_t gid;
  bool has_umask;
  mode_t umask;
  gid_t *additional_gids;
  size_t n_additional_gids;
  struct shim_rlimit *rlimits;
  size_t n_rlimits;
  bool no_new_privileges;
  bool has_oom_score_adj;
  int oom_score_adj;
  struct shim_capabilities caps;
  char *apparmor_profile; /* NULL or "" for none */
  char *selinux_label;    /* NULL or "" for none */
  /* Not from config.json: `--preserve-fds N` of run, create and exec, fds
   * 3..3+N-1 of the runtime's caller passed on to the process, as runc's. */
  unsigned int preserve_fds;
};

/* hooks.<stage>[]: run with the state on stdin (oci_hooks.c). */
enum shim_hook_stage
{
  HOOK_PRESTART,
  HOOK_CREATE_RUNTIME,
  HOOK_CREATE_CONTAINER,
  HOOK_START_CONTAINER,
  HOOK_POSTSTART,
  HOOK_POSTSTOP,
  HOOK_N_STAGES,
};

struct shim_hook
{
  char *path;
  char **args; /* NULL-terminated; NULL: just the path */
  size_t n_args;
  char **env;  /* NULL-terminated; NULL: an empty environment */
  size_t n_env;
  int timeout; /* seconds; 0: none */
};

struct shim_hook_list
{
  struct shim_hook *v;
  size_t n;
};

struct shim_config
{
  char *bundle;   /* absolute path of the bundle directory */
  char *oci_version;
  char *root_path; /* absolute (resolved against the bundle) */
  bool root_readonly;
  struct shim_process process;
  char *hostname;
  struct shim_mount *mounts;
  size_t n_mounts;
  struct shim_namespace *namespaces;
  size_t n_namespaces;
  char *cgroups_path;
  unsigned long rootfs_propagation; /* MS_* (| MS_REC); 0 = default (rprivate) */
  char **masked_paths;
  size_t n_masked_paths;
  char **readonly_paths;
  size_t n_readonly_paths;
  struct util_kv *sysctl;
  size_t n_sysctl;
  bool has_resources;
  struct cgroup_resources resources;
  struct shim_seccomp *seccomp; /* NULL: no filter */
  struct shim_idmap *uid_mappings;
  size_t n_uid_mappings;
  struct shim_idmap *gid_mappings;
  size_t n_gid_mappings;
  struct shim_device *devices;
  size_t n_devices;
  struct util_kv *annotations;
  size_t n_annotations;
  struct shim_hook_list hooks[HOOK_N_STAGES];
};

/* Called for each field that is understood but not honoured yet, with the
 * JSON path and why; the CLI turns these into warnings. */
typedef void (*shim_config_warn_fn) (void *opaque, const char *json_path, const char *why);

/* Parse BUNDLE/config.json.  Errors name the file and the JSON path or the
 * line/column of a syntax error. */
int config_load (const char *bundle, struct shim_config **out, shim_config_warn_fn warn,
                      void *opaque, shim_error_t *err);

/* Parse a config from memory; bundle is used to resolve a relative root. */
int config_parse (const char *json, size_t len, const char *bundle, struct shim_config **out,
                       shim_config_warn_fn warn, void *opaque, shim_error_t *err);

void config_free (struct shim_config *c);

/* `exec --process FILE`: one process object, as in config.json's
 * "process".  cwd defaults to "/". */
int config_process_parse (const char *json, size_t len, struct shim_process *out, shim_config_warn_fn warn,
                        void *opaque, shim_error_t *err);
void config_process_free (struct shim_process *p);

/* `update --resources FILE`: a linux.resources object. */
int config_resources_parse (const char *json, size_t len, struct cgroup_resources *out, shim_error_t *err);
void config_resources_free (struct cgroup_resources *r);
/* A memory object's limit and swap together (PATH: its JSON path,
 * "linux.resources.memory"): swap (memory + swap) below the limit is
 * refused, naming both; LIMIT_FROM names where the limit came from when
 * not from the object ("--memory", applied after the parse), else NULL. */
int config_memory_check (const struct cgroup_resources *r, const char *path, const char *limit_from,
                         shim_error_t *err);

/* The I-th mount option the parser knows (for `features`), NULL past the
 * last. */
const char *config_mount_option_name (size_t i);

/* For `features`: the i-th seccomp action, comparison operator and filter
 * flag name config.json may use, NULL past the last.  An architecture name
 * of the runtime-spec is accepted when config_seccomp_arch_known() says so. */
const char *config_seccomp_action_name (size_t i);
const char *config_seccomp_op_name (size_t i);
const char *config_seccomp_flag_name (size_t i);
bool config_seccomp_arch_known (const char *spec_name);

/* "prestart", "createRuntime", ... */
const char *config_hook_stage_name (enum shim_hook_stage s);

static inline void
cleanup_configp (struct shim_config **c)
{
  if (*c)
    config_free (*c);
}
#define cleanup_config __attribute__ ((cleanup (cleanup_configp)))

/* Lookups used by the setup code. */
const struct shim_namespace *config_namespace (const struct shim_config *c, int type);

/* The host id that container id ID maps to through M (N lines): 0, or -1
 * when it is not mapped. */
int config_idmap_to_host (const struct shim_idmap *m, size_t n, uint32_t id, uint32_t *host);

/* Parse one mount option list into flags/propagation/data; exposed for tests. */
int config_mount_options_parse (char *const *opts, size_t n, struct shim_mount *m, const char *json_path,
                              shim_error_t *err);

#endif
