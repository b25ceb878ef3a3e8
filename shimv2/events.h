/* SPDX-License-Identifier: Apache-2.0 */
/* Events to containerd, as its own shims send them when given
 * -publish-binary: that binary run as `BIN --address ADDR publish --topic T
 * --namespace NS` with the event, a protobuf google.protobuf.Any whose type
 * URL is the message's full name, on its stdin. */
#ifndef SHIMV2_EVENTS_H
#define SHIMV2_EVENTS_H

#include <protobuf-c/protobuf-c.h>

#include "common/error.h"
#include "google/protobuf/any.pb-c.h"

struct events_target
{
  const char *publish_binary; /* NULL: events are not sent (a test) */
  const char *address;        /* containerd's socket */
  const char *ns;             /* the namespace of the task */
};

/* MSG packed in *ANY, its type URL MSG's full name (what containerd's
 * typeurl registers a protobuf type by); *VALUE holds the bytes (malloc'd,
 * freed by the caller once ANY is used). */
int events_any (const ProtobufCMessage *msg, Google__Protobuf__Any *any, uint8_t **value, shim_error_t *err);

/* The Any's bytes for MSG (malloc'd), its type URL being MSG's full name
 * (containerd.events.TaskExit). */
int events_encode (const ProtobufCMessage *msg, uint8_t **out, size_t *len, shim_error_t *err);

/* Publish MSG on TOPIC (/tasks/exit), waiting (bounded) for the publisher
 * to end, so that events reach containerd in the order they are sent. */
int events_publish (const struct events_target *t, const char *topic, const ProtobufCMessage *msg,
                    shim_error_t *err);

/* events_publish tried again on failure (5 times in all, 100 ms more apart
 * each time), in place, as containerd's own shims do, so that the events
 * keep their order (TaskOOM before TaskExit); a lost event is logged. */
void events_send (const struct events_target *t, const char *topic, const ProtobufCMessage *msg);

#endif
