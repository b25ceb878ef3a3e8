/* SPDX-License-Identifier: Apache-2.0 */
/* The files of a state dir, read back by every later command: state.json
 * (state_read) and the watcher's record (watcher_record_read, with its
 * snapshots).  Both read from a directory, so the input is written to one
 * of our own first. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime/state.h"
#include "evidence/watcher.h"
#include "tests/fuzz/fuzz.h"

static int dirfd_ = -1;

static void
put (const char *name, const uint8_t *data, size_t size)
{
  int fd = openat (dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || (size && write (fd, data, size) != (ssize_t) size))
    abort ();
  close (fd);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct shim_state st;
  struct watcher_record rec;
  shim_error_t err = NULL;
  int r;

  if (dirfd_ < 0)
    {
      char tmpl[] = "/tmp/shim-fuzz-state.XXXXXX";
      if (mkdtemp (tmpl) == NULL || (dirfd_ = open (tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        abort ();
    }
  put ("state.json", data, size);
  r = state_read (dirfd_, &st, &err);
  fuzz_check_error (r, &err);
  state_free (&st);

  put ("record.json", data, size);
  memset (&rec, 0, sizeof rec);
  r = watcher_record_read (dirfd_, "record.json", &rec, &err);
  fuzz_check_error (r, &err);
  return 0;
}
