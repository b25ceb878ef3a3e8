/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 (FIPS 180-4), for the one digest containerd's rule for a shim's
 * socket name needs: no crypto library for 64 bytes of hex. */
#ifndef SHIMV2_SHA256_H
#define SHIMV2_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The digest of DATA as 64 lowercase hex digits and a NUL. */
void sha256_hex (const void *data, size_t len, char out[65]);

#endif
