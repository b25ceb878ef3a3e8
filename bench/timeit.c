/* SPDX-License-Identifier: Apache-2.0 */
/* Times containers' lifecycles for bench/run.sh, without a shell in the
 * timed path.
 *
 *   timeit [-c COUNT] [-j JOBS] [-p PREFIX] [-l LOG] -- STEP [::: STEP]...
 *
 * Runs COUNT containers, JOBS at a time; each runs the STEPs in order.  A
 * STEP is a command and its arguments, in which "{}" stands for the
 * container's id (PREFIX-I), or "@wait FILE": wait for the process whose
 * pid FILE holds to end (pidfd, at most 30 s).  Each worker is a child
 * subreaper, as containerd's shim and conmon are: an init whose runtime
 * exited becomes its child, and @wait reaps it, so that `delete` finds it
 * stopped.  A step that fails ends
 * that container's sequence.  Prints, per container,
 *   run I NANOSECONDS MAXRSS_KIB STATUS CPU_NANOSECONDS
 * (the largest peak RSS among its steps' processes; the user and system
 * time of those processes and of what they reaped, which load disturbs
 * far less than the wall time) and at the end
 *   total NANOSECONDS COUNT JOBS
 * The commands' output goes to LOG (default /dev/null). */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STEPS 8
#define MAX_ARGS 64

struct step
{
  int argc;
  char *argv[MAX_ARGS];
};

static struct step steps[MAX_STEPS];
static int nsteps;
static const char *prefix = "bench";
static int log_fd = -1;

static long long
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* ARG with every "{}" replaced by ID; a static buffer per call site is not
 * enough for argv, so this allocates (in the child, or for @wait). */
static char *
subst (const char *arg, const char *id)
{
  size_t n = strlen (arg) + 1, idl = strlen (id);
  const char *p;
  char *out, *o;

  for (p = arg; (p = strstr (p, "{}")); p += 2)
    n += idl;
  out = o = malloc (n);
  if (out == NULL)
    return NULL;
  while (*arg)
    if (arg[0] == '{' && arg[1] == '}')
      {
        memcpy (o, id, idl);
        o += idl;
        arg += 2;
      }
    else
      *o++ = *arg++;
  *o = '\0';
  return out;
}

static int
wait_pidfile (const char *file)
{
  char buf[32] = "";
  int fd = open (file, O_RDONLY | O_CLOEXEC), pidfd;
  ssize_t n;
  struct pollfd p;

  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return -1;
  pidfd = (int) syscall (SYS_pidfd_open, (pid_t) atoi (buf), 0);
  if (pidfd < 0)
    return errno == ESRCH ? 0 : -1; /* already gone */
  p = (struct pollfd){ .fd = pidfd, .events = POLLIN };
  n = poll (&p, 1, 30000);
  close (pidfd);
  if (n != 1)
    return -1;
  while (waitpid ((pid_t) atoi (buf), NULL, 0) < 0 && errno == EINTR)
    ;
  return 0;
}

/* One step: its exit status (or -1), its peak RSS into *rss, its CPU time
 * added to *cpu. */
static int
run_step (const struct step *s, const char *id, long *rss, long long *cpu)
{
  struct rusage ru;
  int status;
  pid_t pid;

  if (strcmp (s->argv[0], "@wait") == 0)
    {
      char *f = subst (s->argv[1], id);
      int r = f ? wait_pidfile (f) : -1;
      free (f);
      return r;
    }
  pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      char *argv[MAX_ARGS + 1];
      int devnull = open ("/dev/null", O_RDWR);
      for (int i = 0; i < s->argc; i++)
        argv[i] = subst (s->argv[i], id);
      argv[s->argc] = NULL;
      dup2 (devnull, 0);
      dup2 (log_fd >= 0 ? log_fd : devnull, 1);
      dup2 (log_fd >= 0 ? log_fd : devnull, 2);
      execvp (argv[0], argv);
      _exit (127);
    }
  while (wait4 (pid, &status, 0, &ru) < 0)
    if (errno != EINTR)
      return -1;
  if (ru.ru_maxrss > *rss)
    *rss = ru.ru_maxrss;
  *cpu += (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL
          + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

static void
run_container (int i)
{
  char id[256], line[128];
  long rss = 0;
  long long t0 = now_ns (), cpu = 0;
  int rc = 0, n;

  snprintf (id, sizeof id, "%s-%d", prefix, i);
  for (int s = 0; s < nsteps && rc == 0; s++)
    rc = run_step (&steps[s], id, &rss, &cpu);
  n = snprintf (line, sizeof line, "run %d %lld %ld %d %lld\n", i, now_ns () - t0, rss, rc, cpu);
  /* Orphans that ended meanwhile (detached watchers). */
  while (waitpid (-1, NULL, WNOHANG) > 0)
    ;
  /* One write: lines of concurrent workers never interleave. */
  if (write (1, line, (size_t) n) < 0)
    _exit (1);
}

int
main (int argc, char **argv)
{
  int count = 1, jobs = 1, opt;
  long long t0;
  char line[128];

  while ((opt = getopt (argc, argv, "+c:j:p:l:")) != -1)
    switch (opt)
      {
      case 'c': count = atoi (optarg); break;
      case 'j': jobs = atoi (optarg); break;
      case 'p': prefix = optarg; break;
      case 'l':
        log_fd = open (optarg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (log_fd < 0)
          return perror (optarg), 2;
        break;
      default:
        return 2;
      }
  if (optind >= argc || count < 1 || jobs < 1)
    {
      fprintf (stderr, "usage: timeit [-c COUNT] [-j JOBS] [-p PREFIX] [-l LOG] -- STEP [::: STEP]...\n");
      return 2;
    }
  for (int i = optind; i < argc; i++)
    {
      if (strcmp (argv[i], ":::") == 0)
        {
          if (steps[nsteps].argc > 0)
            nsteps++;
          continue;
        }
      if (nsteps >= MAX_STEPS || steps[nsteps].argc >= MAX_ARGS - 1)
        return fprintf (stderr, "timeit: too many steps or arguments\n"), 2;
      steps[nsteps].argv[steps[nsteps].argc++] = argv[i];
    }
  if (steps[nsteps].argc > 0)
    nsteps++;
  if (log_fd >= 0)
    fcntl (log_fd, F_SETFD, 0);

  t0 = now_ns ();
  for (int w = 0; w < jobs; w++)
    {
      pid_t pid = fork ();
      if (pid < 0)
        return perror ("timeit: fork"), 1;
      if (pid == 0)
        {
          if (prctl (PR_SET_CHILD_SUBREAPER, 1) < 0)
            _exit (1);
          for (int i = w; i < count; i += jobs)
            run_container (i);
          _exit (0);
        }
    }
  while (wait (NULL) > 0 || errno == EINTR)
    ;
  snprintf (line, sizeof line, "total %lld %d %d\n", now_ns () - t0, count, jobs);
  fputs (line, stdout);
  return 0;
}
