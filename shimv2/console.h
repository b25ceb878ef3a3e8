/* SPDX-License-Identifier: Apache-2.0 */
/* A process's terminal, as runc's shim keeps one: the runtime hands the
 * pty master over a unix socket (runc's --console-socket, SCM_RIGHTS);
 * the shim copies containerd's stdin FIFO to the master and the master
 * to the stdout FIFO, in its own poll loop, never blocking on either
 * side (stderr stays empty: a terminal has one output).  When the
 * process exits, what the master still holds is copied out (bounded in
 * time) before its exit is told, and the copying ends; the master stays
 * for ResizePty until the process is deleted, as in runc's shim. */
#ifndef SHIMV2_CONSOLE_H
#define SHIMV2_CONSOLE_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define CONSOLE_BUF 32768
/* The pollfds each console takes in the loop: master, stdin, stdout. */
#define CONSOLE_POLLFDS 3

struct console
{
  int master; /* the pty master; -1 once closed */
  int in;     /* containerd's stdin FIFO, read; -1 for none or at its end */
  int out;    /* containerd's stdout FIFO, written; -1 once closed */
  bool master_eof; /* every slave closed (EIO): nothing more to read */
  bool drained;    /* console_drain done: no more copying */
  char to_master[CONSOLE_BUF];
  size_t to_master_off, to_master_len;
  char to_out[CONSOLE_BUF];
  size_t to_out_off, to_out_len;
};

/* The socket the runtime sends the master to (runtime_*_opts'
 * console_socket): a listening unix socket *FD at *PATH (malloc'd), in
 * DIR. */
int console_socket_open (const char *dir, char **path, int *fd, shim_error_t *err);

/* The socket closed and removed (PATH freed, set NULL). */
void console_socket_close (char **path, int *fd);

/* The master the runtime sent on the listening socket LFD: it has sent it
 * by the time its call returned, so nothing is waited for; an error when
 * nothing was sent. */
int console_receive (int lfd, int *master, shim_error_t *err);

/* After the runtime's call: the master received on LFD, *C started with
 * it (console_start), and the socket closed (console_socket_close). */
int console_attach (struct console *c, char **path, int *lfd, const char *stdin_path, const char *stdout_path,
                    shim_error_t *err);

/* *C copying between MASTER (taken) and the FIFOs STDIN_PATH and
 * STDOUT_PATH (NULL or "": none, the output discarded). */
int console_start (struct console *c, int master, const char *stdin_path, const char *stdout_path,
                   shim_error_t *err);

/* Whether C copies: started, neither drained nor closed. */
bool console_active (const struct console *c);

/* C's fds for poll, in P[0..CONSOLE_POLLFDS-1] (fd -1 for those not
 * waited for: a full buffer never polls its source, so a hung-up side
 * cannot spin the loop). */
void console_pollfds (const struct console *c, struct pollfd *p);

/* After poll: the copying that P (filled by console_pollfds) allows. */
void console_polled (struct console *c, const struct pollfd *p);

/* The process exited: what the master holds copied out (the kernel's
 * pending output included), the stdout FIFO waited for at most
 * TIMEOUT_MS, then the FIFOs closed (containerd's reader sees the end)
 * and the copying over; the master is kept. */
void console_drain (struct console *c, int timeout_ms);

/* TIOCSWINSZ on the master: the process gets SIGWINCH (none once it
 * exited; no error then either, as runc's shim).  ENOTTY without one. */
int console_resize (const struct console *c, uint32_t width, uint32_t height, shim_error_t *err);

/* Every fd closed; C is inactive after (and may be closed again). */
void console_close (struct console *c);

/* An inactive console (before console_start). */
void console_init (struct console *c);

#endif
