# SPDX-License-Identifier: Apache-2.0
# make            build shim, shim-oom-hook and the example rootfs
# make deps       install the Debian packages the build and the tests need
# make test       unit tests, host integration tests (bats), VM tests (cgroup v2)
# make install    PREFIX=/usr/local DESTDIR=
#
# One static library per folder, linked in layer order (docs/DESIGN.md):
#   common <- cgroup <- verdict <- runtime <- cli      (shim)
#   common <- cgroup <- verdict <- hooks               (shim-oom-hook)
# Headers are included by folder from the top: #include "cgroup/cgroup.h".

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
CC ?= gcc
PKGS := yajl libseccomp libcap
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS)
# Instrumentation for the sanitizer and fuzzing builds (`make test-asan`,
# `make fuzz` build in copies of the tree, under build-asan/ and
# build-fuzz/): objects, libraries and our binaries, never the static
# workloads of the example rootfs.
SANITIZE ?=
CFLAGS += $(SANITIZE)
LDFLAGS += $(SANITIZE)

LAYERS := common cgroup verdict runtime
srcs = $(wildcard $(1)/*.c)
objs = $(patsubst %.c,%.o,$(call srcs,$(1)))
common_LIB := common/libcommon.a
cgroup_LIB := cgroup/libcgroup.a
verdict_LIB := verdict/libverdict.a
runtime_LIB := runtime/libshim.a
# Dependents first, as the linker wants them.
SHIM_LIBS := $(runtime_LIB) $(verdict_LIB) $(cgroup_LIB) $(common_LIB)
HOOK_LIBS := $(verdict_LIB) $(cgroup_LIB) $(common_LIB)

CLI_OBJS := $(call objs,cli)
HOOK_OBJS := $(call objs,hooks)
ALL_OBJS := $(foreach l,$(LAYERS),$(call objs,$(l))) $(CLI_OBJS) $(HOOK_OBJS)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:.c=)

BINS := shim shim-oom-hook

all: $(BINS) examples

$(foreach l,$(LAYERS),$(eval $($(l)_LIB): $(call objs,$(l)); $$(AR) rcs $$@ $$^))

shim: $(CLI_OBJS) $(SHIM_LIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

shim-oom-hook: $(HOOK_OBJS) $(HOOK_LIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Unit tests link the libraries; the hook's tests include the hook's sources.
tests/unit/test_%: tests/unit/test_%.c tests/unit/tap.h $(SHIM_LIBS)
	$(CC) $(CFLAGS) -MMD -MP -Itests/unit $(LDFLAGS) -o $@ $< $(SHIM_LIBS) $(LDLIBS)

%.o: %.c
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# The commit `--version` prints, given to the two files that print it; the
# stamp changes only with the commit, so only they are rebuilt then.
SHIM_COMMIT := $(or $(if $(wildcard .git),$(shell git describe --always --dirty 2>/dev/null)),unknown)
COMMIT_STAMP := build/commit
$(shell mkdir -p build; [ "$$(cat $(COMMIT_STAMP) 2>/dev/null)" = '$(SHIM_COMMIT)' ] || echo '$(SHIM_COMMIT)' >$(COMMIT_STAMP))
cli/main.o hooks/oom_hook.o: $(COMMIT_STAMP)
cli/main.o hooks/oom_hook.o: CFLAGS += -DSHIM_COMMIT='"$(SHIM_COMMIT)"'

-include $(ALL_OBJS:.o=.d) $(UNIT_BINS:=.d)

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
	rm -f $(ALL_OBJS) $(ALL_OBJS:.o=.d) $(UNIT_BINS) $(UNIT_BINS:=.d) $(SHIM_LIBS) $(BINS) \
	      $(EXAMPLE_BINS)
	rm -rf examples/rootfs

.PHONY: all examples unit deps test install clean

# Helpers of the host integration tests, one C file each in tests/helpers/.
TEST_HELPERS := $(patsubst %.c,%,$(wildcard tests/helpers/*.c))
tests/helpers/%: tests/helpers/%.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<
all: $(TEST_HELPERS)
clean: clean-test-helpers
clean-test-helpers:
	rm -f $(TEST_HELPERS)
.PHONY: clean-test-helpers

# Sanitizers and fuzzing (tests/sanitize/, tests/fuzz/), each built in a
# copy of the tree so the normal build is untouched:
#   make test-asan       unit and host suites against an ASan+UBSan build
#   make test-valgrind   the unit tests under valgrind's memcheck
#   make fuzz            each libFuzzer harness for FUZZ_SECONDS (60) on its
#                        corpus, then every saved crash input replayed
test-asan:
	tests/sanitize/run-asan.sh
test-valgrind: $(UNIT_BINS)
	tests/sanitize/run-valgrind.sh
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh
clean: clean-sanitize
clean-sanitize:
	rm -rf build-asan build-fuzz
.PHONY: test-asan test-valgrind fuzz clean-sanitize
