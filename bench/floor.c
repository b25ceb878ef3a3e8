/* SPDX-License-Identifier: Apache-2.0 */
/* The floor: what the kernel alone costs to run a container of the bench's
 * bundle.  clone3 into the same namespaces a runtime makes (mount, pid,
 * ipc, uts, network, cgroup), pivot_root into the rootfs, execve /bin/true,
 * and wait.  Nothing else: no config, no cgroup, no /proc or /dev, no state.
 * Linked statically, as shim is: no loader's work is counted as the kernel's.
 *
 *   floor ROOTFS */

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int
child (const char *rootfs)
{
  char *argv[] = { "/bin/true", NULL };
  char *envp[] = { "PATH=/bin", NULL };

  /* No mount event may reach the host's namespace. */
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return perror ("floor: make / private"), 1;
  /* pivot_root needs a mount point. */
  if (mount (rootfs, rootfs, NULL, MS_BIND | MS_REC, NULL) < 0)
    return perror ("floor: bind the rootfs"), 1;
  if (chdir (rootfs) < 0)
    return perror ("floor: chdir"), 1;
  if (syscall (SYS_pivot_root, ".", ".") < 0)
    return perror ("floor: pivot_root"), 1;
  if (umount2 (".", MNT_DETACH) < 0)
    return perror ("floor: detach the old root"), 1;
  execve (argv[0], argv, envp);
  perror ("floor: execve /bin/true");
  return 1;
}

int
main (int argc, char **argv)
{
  struct clone_args ca = {
    .flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET
             | CLONE_NEWCGROUP,
    .exit_signal = SIGCHLD,
  };
  int status;
  long pid;

  if (argc != 2)
    {
      fprintf (stderr, "usage: floor ROOTFS\n");
      return 2;
    }
  pid = syscall (SYS_clone3, &ca, sizeof ca);
  if (pid < 0)
    return perror ("floor: clone3"), 1;
  if (pid == 0)
    _exit (child (argv[1]));
  while (waitpid ((pid_t) pid, &status, 0) < 0)
    if (errno != EINTR)
      return perror ("floor: waitpid"), 1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
