/* SPDX-License-Identifier: Apache-2.0 */
/* The error object's rules: the first error wins (a second failing call
 * cannot overwrite it, nor can an error handed over from a local object),
 * shim_error appends strerror and shim_error_plain does not. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/util.h"
#include "tap.h"

int
main (void)
{
  {
    cleanup_error shim_error_t err = NULL;
    ok (shim_error (&err, ENOENT, "open `%s`", "a") < 0, "shim_error returns -1");
    is_str (err ? err->msg : NULL, "open `a`: No such file or directory", "shim_error appends strerror");
    is_int (err ? err->status : 0, ENOENT, "shim_error records the errno");
    shim_error (&err, EPERM, "open `%s`", "b");
    shim_error_plain (&err, EINVAL, "second");
    is_str (err ? err->msg : NULL, "open `a`: No such file or directory", "a second error does not replace the first");
    is_int (err ? err->status : 0, ENOENT, "nor its errno");
  }
  {
    cleanup_error shim_error_t err = NULL;
    shim_error_plain (&err, EINVAL, "linux.cgroupsPath: `x` is not a systemd slice name");
    is_str (err ? err->msg : NULL, "linux.cgroupsPath: `x` is not a systemd slice name",
            "shim_error_plain says only its message");
    is_int (err ? err->status : 0, EINVAL, "shim_error_plain records the errno");
  }
  {
    cleanup_error shim_error_t err = NULL;
    shim_error_t tmp = NULL;
    shim_error_plain (&tmp, EIO, "inner");
    ok (shim_error_take (&err, &tmp) < 0 && tmp == NULL, "shim_error_take empties the local error");
    is_str (err ? err->msg : NULL, "inner", "shim_error_take moves it to an empty error");
    shim_error_plain (&tmp, EBUSY, "later");
    shim_error_take (&err, &tmp);
    ok (tmp == NULL, "a taken error that loses is released");
    is_str (err ? err->msg : NULL, "inner", "shim_error_take keeps the first error");
    is_int (err ? err->status : 0, EIO, "and its errno");
    shim_error_prefix (&err, "cgroup `%s`", "/x");
    is_str (err ? err->msg : NULL, "cgroup `/x`: inner", "shim_error_prefix adds context to it");
  }
  {
    shim_error_t tmp = NULL;
    shim_error_plain (&tmp, EIO, "nowhere to go");
    shim_error_take (NULL, &tmp);
    ok (tmp == NULL, "taking into no error object releases it");
  }
  return done_testing ();
}
