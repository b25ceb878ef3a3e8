# SPDX-License-Identifier: Apache-2.0
# make              build shim, shim-oom-hook, the man pages and the example rootfs
# make deps         install the Debian packages the build needs (test-deps: and the tests)
# make test         unit tests, host integration tests (bats), VM tests (cgroup v2)
# make install      PREFIX=/usr/local DESTDIR= BINDIR= MANDIR= ...; make uninstall
# make dist         shim-VERSION.tar.gz, which builds without git
# make bench        shim against runc, crun and the kernel's floor (bench/run.sh)
#
# One static library per folder, linked in layer order (docs/DESIGN.md):
#   common <- cgroup <- verdict <- evidence <- history <- runtime <- cli   (shim)
#   common <- cgroup <- verdict <- evidence <- history <- hooks            (shim-oom-hook)
# Headers are included by folder from the top: #include "cgroup/cgroup.h".
#
# CFLAGS, CPPFLAGS and LDFLAGS are the builder's (dpkg-buildflags, hardening):
# the project's own flags are kept apart and always added.  -Werror only
# with WERROR=1, which `make test` and CI set.

# The one place the version is written.
VERSION := 0.2.0

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/shim
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# Where podman looks for hooks shipped by packages (its default hooks_dir).
HOOKSDIR ?= $(DATADIR)/containers/oci/hooks.d
CC ?= gcc
PKGS := yajl libseccomp libcap libsystemd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libsystemd's headers only: common/sdlib.c loads it when it is needed.
# yajl, libseccomp and libcap are linked in statically (STATIC_DEPS=0:
# dynamically), as runc's and crun's release binaries link theirs: every
# shared library costs every start-up its loading and relocation, and
# create, run and exec start twice (the re-exec that keeps the binary out
# of the container's reach).
STATIC_DEPS ?= 1
ifeq ($(STATIC_DEPS),1)
PKG_LIBS := -Wl,-Bstatic -lyajl_s -lseccomp -lcap -Wl,-Bdynamic
else
PKG_LIBS := $(shell pkg-config --libs $(filter-out libsystemd,$(PKGS)) 2>/dev/null)
endif
CFLAGS ?= -O2 -g
SHIM_CPPFLAGS := -D_GNU_SOURCE -I. $(PKG_CFLAGS)
SHIM_CFLAGS := -std=gnu11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
ALL_CFLAGS = $(SHIM_CPPFLAGS) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS)
LDLIBS += $(PKG_LIBS)
# Instrumentation for the sanitizer and fuzzing builds (`make test-asan`,
# `make fuzz` build in copies of the tree, under build-asan/ and
# build-fuzz/): objects, libraries and our binaries, never the static
# workloads of the example rootfs.
SANITIZE ?=
SHIM_CFLAGS += $(SANITIZE)
LDFLAGS += $(SANITIZE)
# shim and shim-oom-hook are static PIEs (STATIC=0: linked to libc.so):
# no ld.so, no libc.so to map and relocate, at each of the two start-ups of
# create, run and exec and at both of the hook's (measured: a start-up of
# a dynamic binary 30 ms, of a static one 7 ms, in the 6.1 VM under TCG;
# peak RSS of `shim run` 2240 -> 1572 KiB).  The systemd driver still
# loads libsystemd: glibc's dlopen in a static binary needs the same glibc
# at run time, which common/sdlib.c checks; the link says so in a warning.
# The sanitizer builds cannot be static, nor is the shim v2, whose
# protobuf-c is shared.
STATIC ?= 1
BIN_STATIC := $(and $(filter 1,$(STATIC)),$(if $(SANITIZE),,1))
BIN_LDFLAGS := $(if $(BIN_STATIC),-static-pie)
# Last on the line, so that libc too is searched for its archive: the
# libraries' flags end in -Bdynamic for the shim v2 and the unit tests.
comma := ,
BIN_LDLIBS := $(if $(BIN_STATIC),-Wl$(comma)-Bstatic)

LAYERS := common cgroup verdict evidence history runtime
srcs = $(wildcard $(1)/*.c)
objs = $(patsubst %.c,%.o,$(call srcs,$(1)))
common_LIB := common/libcommon.a
cgroup_LIB := cgroup/libcgroup.a
verdict_LIB := verdict/libverdict.a
evidence_LIB := evidence/libevidence.a
history_LIB := history/libhistory.a
runtime_LIB := runtime/libshim.a
# Dependents first, as the linker wants them.
SHIM_LIBS := $(runtime_LIB) $(history_LIB) $(evidence_LIB) $(verdict_LIB) $(cgroup_LIB) $(common_LIB)
HOOK_LIBS := $(history_LIB) $(evidence_LIB) $(verdict_LIB) $(cgroup_LIB) $(common_LIB)

CLI_OBJS := $(call objs,cli)
HOOK_OBJS := $(call objs,hooks)
# containerd's shim v2 (shimv2/): its messages are C made by protoc-c from
# the .proto files in shimv2/proto/ at build time (Debian's protobuf-c).
PROTOS := $(shell find shimv2/proto -name '*.proto')
PROTO_SRCS := $(PROTOS:.proto=.pb-c.c)
PROTO_OBJS := $(PROTO_SRCS:.c=.o)
SHIMV2_OBJS := $(call objs,shimv2) $(PROTO_OBJS)
SHIMV2_LIB := shimv2/libshimv2.a
ALL_OBJS := $(foreach l,$(LAYERS),$(call objs,$(l))) $(CLI_OBJS) $(HOOK_OBJS) $(SHIMV2_OBJS)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:.c=)

BINS := shim shim-oom-hook containerd-shim-shim-v2

all: $(BINS) examples

# Each archive made afresh: `ar rcs` on an old one keeps the members of
# sources since removed or renamed, whose stale symbols can win the link.
ARCHIVE = rm -f $@ && $(AR) rcs $@ $^
$(foreach l,$(LAYERS),$(eval $($(l)_LIB): $(call objs,$(l)); $$(ARCHIVE)))

shim: $(CLI_OBJS) $(SHIM_LIBS)
	$(CC) $(LDFLAGS) $(BIN_LDFLAGS) -o $@ $^ $(LDLIBS) $(BIN_LDLIBS)

shim-oom-hook: $(HOOK_OBJS) $(HOOK_LIBS)
	$(CC) $(LDFLAGS) $(BIN_LDFLAGS) -o $@ $^ $(LDLIBS) $(BIN_LDLIBS)

%.pb-c.c %.pb-c.h: %.proto
	protoc-c -Ishimv2/proto --c_out=shimv2/proto $<
$(SHIMV2_OBJS) tests/unit/test_shimv2_%: SHIM_CPPFLAGS += -Ishimv2/proto
$(call objs,shimv2): $(PROTO_SRCS:.c=.h)
$(SHIMV2_LIB): $(filter-out shimv2/main.o,$(SHIMV2_OBJS))
	$(ARCHIVE)
containerd-shim-shim-v2: shimv2/main.o $(SHIMV2_LIB) $(SHIM_LIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lprotobuf-c

# Unit tests link the libraries; the hook's tests include the hook's sources.
tests/unit/test_%: tests/unit/test_%.c tests/unit/tap.h $(SHIM_LIBS)
	$(CC) $(ALL_CFLAGS) -MMD -MP -Itests/unit $(LDFLAGS) -o $@ $< $(SHIM_LIBS) $(LDLIBS)
# The shim v2's tests link its library too.
tests/unit/test_shimv2_%: tests/unit/test_shimv2_%.c tests/unit/tap.h $(SHIMV2_LIB) $(SHIM_LIBS)
	$(CC) $(ALL_CFLAGS) -MMD -MP -Itests/unit $(LDFLAGS) -o $@ $< $(SHIMV2_LIB) $(SHIM_LIBS) $(LDLIBS) -lprotobuf-c

%.o: %.c
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The version and commit `--version` prints, given to the files that
# print them; the stamp changes only with them, so only they are rebuilt
# then.  From git: `git describe`; from a `make dist` tarball: its COMMIT.
SHIM_COMMIT := $(or $(if $(wildcard .git),$(shell git describe --always --dirty 2>/dev/null)),$(shell cat COMMIT 2>/dev/null),unknown)
COMMIT_STAMP := build/commit
$(shell mkdir -p build; [ "$$(cat $(COMMIT_STAMP) 2>/dev/null)" = '$(VERSION) $(SHIM_COMMIT)' ] || echo '$(VERSION) $(SHIM_COMMIT)' >$(COMMIT_STAMP))
cli/main.o hooks/oom_hook.o runtime/features.o: $(COMMIT_STAMP)
cli/main.o hooks/oom_hook.o runtime/features.o: SHIM_CPPFLAGS += -DSHIM_VERSION='"$(VERSION)"' -DSHIM_COMMIT='"$(SHIM_COMMIT)"'

-include $(ALL_OBJS:.o=.d) $(UNIT_BINS:=.d)

# The example rootfs: busybox-static plus the static test workloads.
EXAMPLE_BINS := examples/bin/memhog examples/bin/forkbomb
examples: examples/rootfs/.stamp
examples/bin/%: examples/src/%.c
	@mkdir -p examples/bin
	$(CC) -O2 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -static -o $@ $<
examples/rootfs/.stamp: examples/mkrootfs.sh $(EXAMPLE_BINS)
	examples/mkrootfs.sh examples/rootfs $(EXAMPLE_BINS)
	touch $@

unit: $(UNIT_BINS)
	SHIM_TEST_SUITES=unit tests/run-all.sh

deps:
	scripts/install-deps.sh
test-deps:
	scripts/install-deps.sh --test

# Warnings are errors here: the tree is kept free of them.
test:
	$(MAKE) WERROR=1 all $(UNIT_BINS)
	tests/run-all.sh

clean:
	rm -f $(ALL_OBJS) $(ALL_OBJS:.o=.d) $(UNIT_BINS) $(UNIT_BINS:=.d) $(SHIM_LIBS) $(BINS) \
	      $(EXAMPLE_BINS) $(SHIMV2_LIB) $(PROTO_SRCS) $(PROTO_SRCS:.c=.h)
	rm -rf examples/rootfs

.PHONY: all examples unit deps test-deps test clean

# Helpers of the host integration tests, one C file each in tests/helpers/.
TEST_HELPERS := $(patsubst %.c,%,$(wildcard tests/helpers/*.c))
tests/helpers/%: tests/helpers/%.c
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<
all: $(TEST_HELPERS)
clean: clean-test-helpers
clean-test-helpers:
	rm -f $(TEST_HELPERS)
.PHONY: clean-test-helpers

# ---- man pages, completion, install, dist -----------------------------------
MAN_SRCS := $(wildcard docs/man/*.scd)
MANS := $(MAN_SRCS:.scd=)
all: $(MANS)
docs/man/%: docs/man/%.scd
	scdoc <$< >$@
clean: clean-man
clean-man:
	rm -f $(MANS)

# The snippets name /usr/local/bin; installed, they name BINDIR.
SNIPPETS := config/podman/containers.conf config/containerd/config.toml \
            config/docker/daemon.json config/oci-hooks.json \
            config/kubernetes/runtimeclass.yaml
subst_bindir = sed 's|/usr/local/bin|$(BINDIR)|g' $(1) >$(2)

install: $(BINS) $(MANS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8 \
	           $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(HOOKSDIR) $(DESTDIR)$(DOCDIR)/examples
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(filter %.7,$(MANS)) $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(filter %.8,$(MANS)) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 config/bash-completion/shim config/bash-completion/shim-oom-hook \
	                $(DESTDIR)$(BASHCOMPDIR)/
	$(call subst_bindir,config/hooks.d/shim-oom-hook.json,$(DESTDIR)$(HOOKSDIR)/shim-oom-hook.json)
	for f in $(SNIPPETS); do \
	  install -d $(DESTDIR)$(DOCDIR)/examples/$$(basename $$(dirname $$f)) && \
	  $(call subst_bindir,$$f,$(DESTDIR)$(DOCDIR)/examples/$$(basename $$(dirname $$f))/$$(basename $$f)) \
	  || exit 1; \
	done
	install -m 0644 README.md CHANGELOG.md LICENSE $(DESTDIR)$(DOCDIR)/

# Exactly what install wrote (directories shared with other packages stay).
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(BINS))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(filter %.7,$(MANS))))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(filter %.8,$(MANS))))
	rm -f $(DESTDIR)$(BASHCOMPDIR)/shim $(DESTDIR)$(BASHCOMPDIR)/shim-oom-hook
	rm -f $(DESTDIR)$(HOOKSDIR)/shim-oom-hook.json
	rm -rf $(DESTDIR)$(DOCDIR)

# A tarball of the committed tree plus the commit it came from, so that
# --version still names it when built without git.
DIST := shim-$(VERSION)
dist:
	rm -rf build/$(DIST) && mkdir -p build/$(DIST)
	git archive --format=tar HEAD | tar -x -C build/$(DIST)
	echo '$(SHIM_COMMIT)' >build/$(DIST)/COMMIT
	tar -C build -czf $(DIST).tar.gz $(DIST)
	rm -rf build/$(DIST)
	@echo $(DIST).tar.gz

# The benchmark (bench/run.sh says what it measures); never part of a test
# but for `make test` checking that it runs.
BENCH_BINS := bench/timeit bench/floor bench/hooktime
bench/%: bench/%.c
	$(CC) $(SHIM_CPPFLAGS) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<
# The floor is linked as shim is: a dynamic floor would count ld.so's work
# (23 ms of a start-up in the VM) as the kernel's; hooktime too, whose
# start-up is in the hook scenario's times.
bench/floor bench/hooktime: bench/%: bench/%.c
	$(CC) $(SHIM_CPPFLAGS) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(LDFLAGS) $(BIN_LDFLAGS) -o $@ $< $(BIN_LDLIBS)
bench: all $(BENCH_BINS)
	bench/run.sh $(BENCH_ARGS)
all: $(BENCH_BINS)
clean: clean-bench
clean-bench:
	rm -f $(BENCH_BINS)
	rm -rf bench/out

# The guide's picture, from its text source (graphviz); committed, so that
# the guide reads without it.
docs: docs/guide/verdict.svg
docs/guide/verdict.svg: docs/guide/verdict.dot
	dot -Tsvg $< -o $@


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
.PHONY: install uninstall dist clean-man docs bench clean-bench
