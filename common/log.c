/* SPDX-License-Identifier: Apache-2.0 */
#include "common/log.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

static int log_fd = -1;
static bool log_json;
static bool debug_on;
/* log_stderr_hold: nothing on stderr; errors and warnings kept in held. */
static bool stderr_held;
static char **held;
static size_t n_held;
static const char *prog = "shim";

static const char *const level_names[] = { "error", "warning", "info", "debug" };

int
log_init (const char *program, const char *path, const char *format, bool debug, shim_error_t *err)
{
  prog = program;
  debug_on = debug;
  if (format && strcmp (format, "json") != 0 && strcmp (format, "text") != 0)
    return shim_error_plain (err, EINVAL, "--log-format: `%s` is neither `text` nor `json`", format);
  log_json = format && strcmp (format, "json") == 0;
  if (path)
    {
      log_fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
      if (log_fd < 0)
        return shim_error_errno (err, "--log `%s`", path);
    }
  return 0;
}

void
log_stderr_hold (void)
{
  stderr_held = true;
}

size_t
log_held (const char *const **msgs)
{
  *msgs = (const char *const *) held;
  return n_held;
}

/* A message that cannot be kept (no memory) is lost, as a write to a
 * closed stderr would be. */
static void
hold (const char *msg)
{
  char **more = realloc (held, (n_held + 1) * sizeof *held);
  char *copy = strdup (msg);

  if (more == NULL || copy == NULL)
    {
      if (more)
        held = more;
      free (copy);
      return;
    }
  held = more;
  held[n_held++] = copy;
}

bool
log_debug_enabled (void)
{
  return debug_on;
}

static void
write_all (int fd, const char *s, size_t len)
{
  while (len > 0)
    {
      ssize_t r = write (fd, s, len);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return;
      s += r;
      len -= (size_t) r;
    }
}

static void
write_json_record (int fd, enum log_level level, const char *msg, const char *when)
{
  yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;

  if (g == NULL)
    return;
  yajl_gen_map_open (g);
  yajl_gen_string (g, (const unsigned char *) "level", 5);
  yajl_gen_string (g, (const unsigned char *) level_names[level], strlen (level_names[level]));
  yajl_gen_string (g, (const unsigned char *) "msg", 3);
  yajl_gen_string (g, (const unsigned char *) msg, strlen (msg));
  yajl_gen_string (g, (const unsigned char *) "time", 4);
  yajl_gen_string (g, (const unsigned char *) when, strlen (when));
  yajl_gen_map_close (g);
  if (yajl_gen_get_buf (g, &buf, &len) == yajl_gen_status_ok)
    {
      write_all (fd, (const char *) buf, len);
      write_all (fd, "\n", 1);
    }
  yajl_gen_free (g);
}

/* S between double quotes, escaped as Go's strconv.Quote does the common
 * cases, so that a message with quotes or newlines stays one line. */
static char *
quote (const char *s)
{
  char *out = malloc (strlen (s) * 4 + 3), *o = out;

  if (out == NULL)
    return NULL;
  *o++ = '"';
  for (; *s; s++)
    {
      unsigned char ch = (unsigned char) *s;
      const char *esc = ch == '"' ? "\\\"" : ch == '\\' ? "\\\\" : ch == '\n' ? "\\n" : ch == '\t' ? "\\t"
                        : ch == '\r' ? "\\r" : NULL;
      if (esc)
        o = stpcpy (o, esc);
      else if (ch < 0x20 || ch == 0x7f)
        o += sprintf (o, "\\x%02x", ch);
      else
        *o++ = (char) ch;
    }
  *o++ = '"';
  *o = '\0';
  return out;
}

static void
write_text_record (int fd, enum log_level level, const char *msg, const char *when)
{
  cleanup_free char *q = quote (msg);
  cleanup_free char *line = NULL;
  int n;

  if (q == NULL)
    return;
  n = asprintf (&line, "time=\"%s\" level=%s msg=%s\n", when, level_names[level], q);
  if (n > 0)
    write_all (fd, line, (size_t) n);
}

/* One record, as runc's logger (logrus) writes it:
 *   json  {"level":"debug","msg":"...","time":"..."}
 *   text  time="..." level=debug msg="..." */
static void
write_record (int fd, enum log_level level, const char *msg)
{
  char when[UTIL_RFC3339_LEN];

  util_rfc3339_now (when, sizeof when);
  if (log_json)
    write_json_record (fd, level, msg, when);
  else
    write_text_record (fd, level, msg, when);
}

/* Where each line goes, as runc: the log is the --log file, or stderr
 * without one.  Info and debug lines are only ever log records (debug with
 * --debug; info on stderr with --debug only, a person is reading).  Errors
 * and warnings are for whoever ran shim too: always on stderr, as
 * "shim: msg", unless stderr is itself the JSON log; with `run --json`
 * they are held for its one line. */
static void
emit (enum log_level level, const char *msg)
{
  bool stderr_is_log = log_fd < 0;

  if (level == LOG_DEBUG && !debug_on)
    return;
  if (!stderr_is_log)
    write_record (log_fd, level, msg);
  if (stderr_held)
    {
      if (level <= LOG_WARNING)
        hold (msg);
      return;
    }
  if (stderr_is_log && (level > LOG_WARNING || log_json))
    {
      if (level <= LOG_WARNING || debug_on)
        write_record (STDERR_FILENO, level, msg);
    }
  else if (level <= LOG_WARNING)
    {
      cleanup_free char *line = NULL;
      int n = asprintf (&line, "%s: %s%s\n", prog, level == LOG_WARNING ? "warning: " : "", msg);
      if (n > 0)
        write_all (STDERR_FILENO, line, (size_t) n);
    }
}

void
log_msg (enum log_level level, const char *fmt, ...)
{
  va_list ap;
  char *msg = NULL;

  if (level == LOG_DEBUG && !debug_on)
    return;
  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) < 0)
    msg = NULL;
  va_end (ap);
  if (msg)
    emit (level, msg);
  free (msg);
}

void
log_error_release (shim_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  emit (LOG_ERROR, (*err)->msg);
  shim_error_release (err);
}
