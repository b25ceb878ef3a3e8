# SPDX-License-Identifier: Apache-2.0
# make            build shim, shim-oom-hook and the example rootfs
# make deps       install the Debian packages the build and the tests need
# make test       unit tests, host integration tests (bats), VM tests (cgroup v2)
# make install    PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
CC ?= gcc
PKGS := yajl libseccomp libcap
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ishim/lib $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS)

LIB_SRCS := $(wildcard shim/lib/*.c)
LIB_OBJS := $(LIB_SRCS:.c=.o)
SHIM_SRCS := $(wildcard shim/*.c)
SHIM_OBJS := $(SHIM_SRCS:.c=.o)
HOOK_SRCS := $(wildcard hooks/*.c)
HOOK_OBJS := $(HOOK_SRCS:.c=.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:.c=)
# Unit tests may exercise the runtime's own modules (config parsing, ...):
# link every object of shim/ except the one holding main().
SHIM_LIB_OBJS := $(filter-out shim/cli.o,$(SHIM_OBJS))

BINS := shim/shim $(if $(HOOK_SRCS),hooks/shim-oom-hook)

all: $(BINS) examples

shim/lib/libshim.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

shim/shim: $(SHIM_OBJS) shim/lib/libshim.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

hooks/shim-oom-hook: $(HOOK_OBJS) shim/lib/libshim.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

tests/unit/test_%: tests/unit/test_%.c tests/unit/tap.h $(SHIM_LIB_OBJS) shim/lib/libshim.a
	$(CC) $(CFLAGS) -Ishim -Itests/unit $(LDFLAGS) -o $@ $< $(SHIM_LIB_OBJS) shim/lib/libshim.a $(LDLIBS)

%.o: %.c $(wildcard shim/lib/*.h shim/*.h hooks/*.h)
	$(CC) $(CFLAGS) -Ishim -c -o $@ $<

# The example rootfs: busybox-static plus the static test workloads.
EXAMPLE_BINS := examples/bin/memhog examples/bin/forkbomb
examples: examples/rootfs/.stamp
examples/bin/%: examples/src/%.c
	@mkdir -p examples/bin
	$(CC) -O2 -Wall -Wextra -Werror -static -o $@ $<
examples/rootfs/.stamp: examples/mkrootfs.sh $(EXAMPLE_BINS)
	examples/mkrootfs.sh examples/rootfs $(EXAMPLE_BINS)
	touch $@

unit: $(UNIT_BINS)
	SHIM_TEST_SUITES=unit tests/run-all.sh

deps:
	scripts/install-deps.sh

test: all $(UNIT_BINS)
	tests/run-all.sh

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/

clean:
	rm -f $(LIB_OBJS) $(SHIM_OBJS) $(HOOK_OBJS) $(UNIT_BINS) shim/lib/libshim.a $(BINS) \
	      $(EXAMPLE_BINS)
	rm -rf examples/rootfs

.PHONY: all examples unit deps test install clean

# The hook's unit tests compile the hook's sources in.
tests/unit/test_hook_state tests/unit/test_hook_verdict: $(wildcard hooks/*.c hooks/*.h)

# Helpers of the host integration tests: recvtty, the --console-socket end
# (tests/integration/terminal_console_socket.bats).
TEST_HELPERS := tests/helpers/recvtty
tests/helpers/%: tests/helpers/%.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<
all: $(TEST_HELPERS)
clean: clean-test-helpers
clean-test-helpers:
	rm -f $(TEST_HELPERS)
.PHONY: clean-test-helpers
