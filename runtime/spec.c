/* SPDX-License-Identifier: Apache-2.0 */
/* spec: a config.json to start from, runc's default (and with rootless,
 * runc spec --rootless's). */
#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"

/* "1.0.2", as runc 1.1 writes (its "1.0.2-dev"): Debian 12's crun 1.8.1
 * refuses a 1.2.0 ("unknown version specified"), and nothing below needs
 * more. */
#define SPEC_OCI_VERSION "1.0.2"

/* runc's default capabilities, in its bounding, effective and permitted
 * sets.  Not in its ambient set: an ambient capability must be inheritable
 * too, which shim checks and runc's 1.1 spec no longer writes (CVE-2022-29162);
 * for root, the other three are all that count. */
#define SPEC_CAPS "[ \"CAP_AUDIT_WRITE\", \"CAP_KILL\", \"CAP_NET_BIND_SERVICE\" ]"

/* runc spec's default for the rootfs next to it; the %s are what
 * --rootless changes (runc's specconv.ToRootless): devpts' gid option, how
 * /sys is mounted, the resources or the id mappings, the namespaces. */
static const char spec_format[] =
  "{\n"
  "  \"ociVersion\": \"" SPEC_OCI_VERSION "\",\n"
  "  \"process\": {\n"
  "    \"terminal\": true,\n"
  "    \"user\": { \"uid\": 0, \"gid\": 0 },\n"
  "    \"args\": [ \"sh\" ],\n"
  "    \"env\": [ \"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\", \"TERM=xterm\" ],\n"
  "    \"cwd\": \"/\",\n"
  "    \"capabilities\": {\n"
  "      \"bounding\": " SPEC_CAPS ",\n"
  "      \"effective\": " SPEC_CAPS ",\n"
  "      \"permitted\": " SPEC_CAPS "\n"
  "    },\n"
  "    \"rlimits\": [ { \"type\": \"RLIMIT_NOFILE\", \"hard\": 1024, \"soft\": 1024 } ],\n"
  "    \"noNewPrivileges\": true\n"
  "  },\n"
  "  \"root\": { \"path\": \"rootfs\", \"readonly\": true },\n"
  "  \"hostname\": \"shim\",\n"
  "  \"mounts\": [\n"
  "    { \"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\" },\n"
  "    { \"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\",\n"
  "      \"options\": [ \"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\" ] },\n"
  "    { \"destination\": \"/dev/pts\", \"type\": \"devpts\", \"source\": \"devpts\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"newinstance\", \"ptmxmode=0666\", \"mode=0620\"%s ] },\n"
  "    { \"destination\": \"/dev/shm\", \"type\": \"tmpfs\", \"source\": \"shm\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"mode=1777\", \"size=65536k\" ] },\n"
  "    { \"destination\": \"/dev/mqueue\", \"type\": \"mqueue\", \"source\": \"mqueue\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\" ] },\n"
  "    %s,\n"
  "    { \"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup2\", \"source\": \"cgroup\",\n"
  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"relatime\", \"ro\" ] }\n"
  "  ],\n"
  "  \"linux\": {\n"
  "%s"
  "    \"namespaces\": [ { \"type\": \"pid\" }, %s{ \"type\": \"ipc\" },\n"
  "                    { \"type\": \"uts\" }, { \"type\": \"mount\" }, { \"type\": \"cgroup\" }%s ],\n"
  "    \"maskedPaths\": [ \"/proc/acpi\", \"/proc/asound\", \"/proc/kcore\", \"/proc/keys\",\n"
  "      \"/proc/latency_stats\", \"/proc/timer_list\", \"/proc/timer_stats\", \"/proc/sched_debug\",\n"
  "      \"/sys/firmware\", \"/proc/scsi\" ],\n"
  "    \"readonlyPaths\": [ \"/proc/bus\", \"/proc/fs\", \"/proc/irq\", \"/proc/sys\",\n"
  "      \"/proc/sysrq-trigger\" ]\n"
  "  }\n"
  "}\n";

/* The config.json's text (malloc'd), or NULL. */
static char *
spec_text (bool rootless)
{
  cleanup_free char *mappings = NULL;
  char *text = NULL;
  int n;

  if (!rootless)
    n = asprintf (&text, spec_format, ", \"gid=5\"",
                  "{ \"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\",\n"
                  "      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"ro\" ] }",
                  "    \"resources\": { \"devices\": [ { \"allow\": false, \"access\": \"rwm\" } ] },\n",
                  "{ \"type\": \"network\" }, ", "");
  /* Root in the container is the caller; no network namespace (a user
   * namespace's own has no way out), so /sys is the host's, bound; no
   * device rules to attach without a cgroup of one's own; devpts' gid 5 is
   * not mapped. */
  else if (asprintf (&mappings,
                     "    \"uidMappings\": [ { \"containerID\": 0, \"hostID\": %u, \"size\": 1 } ],\n"
                     "    \"gidMappings\": [ { \"containerID\": 0, \"hostID\": %u, \"size\": 1 } ],\n",
                     (unsigned) getuid (), (unsigned) getgid ())
           < 0)
    return NULL;
  else
    n = asprintf (&text, spec_format, "",
                  "{ \"destination\": \"/sys\", \"type\": \"none\", \"source\": \"/sys\",\n"
                  "      \"options\": [ \"rbind\", \"nosuid\", \"noexec\", \"nodev\", \"ro\" ] }",
                  mappings, "", ", { \"type\": \"user\" }");
  return n < 0 ? NULL : text;
}

int
runtime_spec (const char *bundle, bool rootless, shim_error_t *err)
{
  cleanup_close int dfd = -1, fd = -1;
  cleanup_free char *text = spec_text (rootless);
  size_t off = 0, len;

  if (text == NULL)
    return shim_error_errno (err, "spec");
  len = strlen (text);
  dfd = open (bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return shim_error_errno (err, "bundle `%s`", bundle);
  /* As runc: an existing config.json is never overwritten. */
  fd = openat (dfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return shim_error_errno (err, "`%s/config.json`", bundle);
  while (off < len)
    {
      ssize_t w = write (fd, text + off, len - off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return shim_error_errno (err, "write `%s/config.json`", bundle);
      off += (size_t) w;
    }
  return 0;
}
