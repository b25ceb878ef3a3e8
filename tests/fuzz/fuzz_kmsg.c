/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer harness for the kernel-log witness: its parser (verdict/kmsg.c),
 * its reader (evidence/kmsg_reader.c) and its record (kmsg_evidence.c):
 * any bytes as one /dev/kmsg record, then as a stream of records through a
 * reader, then the evidence through its JSON and back.  From the repo root:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE \
 *     -I. $(pkg-config --cflags yajl) -o fuzz_kmsg tests/fuzz/fuzz_kmsg.c \
 *     verdict/kmsg.c evidence/kmsg_reader.c evidence/kmsg_evidence.c \
 *     common/error.c common/util.c $(pkg-config --libs yajl)
 *   ./fuzz_kmsg -max_total_time=60 tests/unit/fixtures/kmsg
 *
 * The fixtures are a seed corpus (each file a stream of records). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "evidence/kmsg_evidence.h"
#include "evidence/kmsg_reader.h"

static struct kmsg_reader reader;
static struct kmsg_evidence ev, back;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct kmsg_oom_kill k;
  /* An exact-size copy: ASan sees any read past SIZE. */
  char *rec = malloc (size ? size : 1);
  size_t start = 0, i;
  yajl_gen g;
  const unsigned char *buf;
  size_t len;
  shim_error_t err = NULL;

  memcpy (rec, data, size);
  kmsg_parse_record (rec, size, &k);

  /* The same bytes as records split at newlines, fed to one reader. */
  memset (&reader, 0, sizeof reader);
  memset (&ev, 0, sizeof ev);
  reader.fd = -1;
  strcpy (reader.cgroup, "/shim/c1");
  for (i = 0; i < size; i++)
    if (rec[i] == '\n')
      {
        kmsg_reader_feed (&reader, rec + start, i + 1 - start, &ev);
        start = i + 1;
      }
  kmsg_reader_feed (&reader, rec + start, size - start, &ev);
  free (rec);

  /* Whatever was kept goes through JSON and comes back the same. */
  g = yajl_gen_alloc (NULL);
  if (kmsg_evidence_gen (g, &ev, &err) == 0 && yajl_gen_get_buf (g, &buf, &len) == yajl_gen_status_ok)
    {
      char *text = strndup ((const char *) buf, len);
      yajl_val v = yajl_tree_parse (text, NULL, 0);
      if (v == NULL || kmsg_evidence_from_tree (v, "kmsg", &back, &err) < 0
          || memcmp (&back.kills, &ev.kills, sizeof ev.kills) != 0 || back.n != ev.n)
        abort ();
      yajl_tree_free (v);
      free (text);
    }
  shim_error_release (&err);
  yajl_gen_free (g);
  return 0;
}
