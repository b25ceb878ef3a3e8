/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

/* Signals a person or an engine sends to the runtime that belong to the
 * container (runc forwards the same set). */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };

int
supervise_signals_fd (shim_error_t *err)
{
  sigset_t mask;
  size_t i;
  int fd;

  sigemptyset (&mask);
  for (i = 0; i < sizeof (forwarded) / sizeof (forwarded[0]); i++)
    {
      /* A signal our caller left ignored never reaches a signalfd; runc
       * forwards those too. */
      signal (forwarded[i], SIG_DFL);
      sigaddset (&mask, forwarded[i]);
    }
  /* Ignored SIGCHLD makes the kernel reap init itself and waitid fail. */
  signal (SIGCHLD, SIG_DFL);
  if (sigprocmask (SIG_BLOCK, &mask, NULL) < 0)
    return shim_error_errno (err, "sigprocmask");
  fd = signalfd (-1, &mask, SFD_CLOEXEC);
  if (fd < 0)
    return shim_error_errno (err, "signalfd");
  return fd;
}

int
supervise_exit_code (int status)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return 1;
}

int
supervise_need_terminal (const char *what, shim_error_t *err)
{
  int fd;

  if (isatty (STDIN_FILENO) || isatty (STDOUT_FILENO) || isatty (STDERR_FILENO))
    return 0;
  fd = open ("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd >= 0)
    {
      close (fd);
      return 0;
    }
  return shim_error_plain (err, errno,
                           "%s: no terminal to attach the container's to (stdin, stdout and stderr are not "
                           "terminals; open /dev/tty: %s): give --console-socket, or set process.terminal to false",
                           what, strerror (errno));
}

/* Copy what is there from one fd to another; false at EOF or error. */
static bool
pump (int from, int to)
{
  char buf[8192];
  ssize_t r = read (from, buf, sizeof (buf)), off = 0;
  if (r <= 0)
    return r < 0 && (errno == EAGAIN || errno == EINTR);
  while (off < r)
    {
      ssize_t w = write (to, buf + off, (size_t) (r - off));
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return false;
      off += w;
    }
  return true;
}

struct tty_state
{
  bool raw;
  struct termios saved;
};

static void
restore_tty (struct tty_state *t)
{
  if (t->raw)
    tcsetattr (STDIN_FILENO, TCSANOW, &t->saved);
}

static void
copy_winsize (int master)
{
  struct winsize ws;
  if (ioctl (STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
    ioctl (master, TIOCSWINSZ, &ws);
}

int
supervise_wait (struct container_proc *proc, int sigfd, struct monitor *mon, int *status, shim_error_t *err)
{
  __attribute__ ((cleanup (restore_tty))) struct tty_state tty = { .raw = false };
  int master = proc->pty_master, in = master >= 0 ? STDIN_FILENO : -1;

  /* Our terminal passes every key through; the container's pty does the
   * line discipline. */
  if (master >= 0 && isatty (STDIN_FILENO) && tcgetattr (STDIN_FILENO, &tty.saved) == 0)
    {
      struct termios raw = tty.saved;
      cfmakeraw (&raw);
      tty.raw = tcsetattr (STDIN_FILENO, TCSANOW, &raw) == 0;
      copy_winsize (master);
    }
  for (;;)
    {
      struct pollfd pfd[5] = {
        { .fd = proc->pidfd, .events = POLLIN },
        { .fd = sigfd, .events = POLLIN },
        { .fd = mon ? monitor_fd (mon) : -1, .events = mon ? monitor_poll_events (mon) : POLLPRI },
        { .fd = master, .events = POLLIN },
        { .fd = in, .events = POLLIN },
      };
      if (poll (pfd, 5, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return shim_error_errno (err, "poll");
        }
      if (pfd[2].revents & (POLLPRI | POLLIN | POLLERR))
        {
          shim_error_t tmp = NULL;
          /* The evidence is taken now: the OOM may be followed by the
           * cgroup emptying and its memory.stat showing nothing. */
          if (monitor_update (mon, &tmp) < 0)
            log_error_release (&tmp);
        }
      if (pfd[3].revents & (POLLIN | POLLHUP | POLLERR) && !pump (master, STDOUT_FILENO))
        master = -1;
      if (pfd[4].revents & (POLLIN | POLLHUP | POLLERR) && !pump (in, proc->pty_master))
        {
          /* Our stdin ended: the pty's own end-of-file character. */
          struct termios t;
          char eof = tcgetattr (proc->pty_master, &t) == 0 ? (char) t.c_cc[VEOF] : 4;
          (void) !write (proc->pty_master, &eof, 1);
          in = -1;
        }
      if (pfd[1].revents & POLLIN)
        {
          struct signalfd_siginfo si;
          if (read (sigfd, &si, sizeof (si)) == sizeof (si))
            {
              /* The pty signals its foreground group itself when its size
               * changes. */
              if (si.ssi_signo == SIGWINCH && proc->pty_master >= 0)
                copy_winsize (proc->pty_master);
              else
                {
                  log_msg (LOG_DEBUG, "forwarding signal %u to the container's process", si.ssi_signo);
                  if (syscall (SYS_pidfd_send_signal, proc->pidfd, (int) si.ssi_signo, NULL, 0) < 0
                      && errno != ESRCH)
                    log_msg (LOG_WARNING, "forward signal %u: %s", si.ssi_signo, strerror (errno));
                }
            }
        }
      if (pfd[0].revents & (POLLIN | POLLHUP))
        {
          siginfo_t si = { 0 };
          if (waitid (P_PIDFD, (id_t) proc->pidfd, &si, WEXITED) < 0)
            return shim_error_errno (err, "waitid on the container's process");
          if (si.si_code == CLD_EXITED)
            *status = W_EXITCODE (si.si_status, 0);
          else
            *status = W_EXITCODE (0, si.si_status) | (si.si_code == CLD_DUMPED ? WCOREFLAG : 0);
          /* What it wrote last is still in the pty. */
          if (master >= 0 && fcntl (master, F_SETFL, O_NONBLOCK) == 0)
            while (pump (master, STDOUT_FILENO))
              {
                struct pollfd p = { .fd = master, .events = POLLIN };
                if (poll (&p, 1, 0) <= 0)
                  break;
              }
          return 0;
        }
    }
}
