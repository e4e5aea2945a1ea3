# Pangea — one non-recursive Makefile. `make`, `make check`, `make demo`, `make bench`,
# `make install PREFIX=/opt/pangea`. Options: CC=clang, WERROR=1, SANITIZE=address,undefined
# (or SANITIZE=thread).

PREFIX    ?= /usr/local
CC        ?= gcc
BUILD     ?= build
VERSION   := 0.1.0
SOVERSION := 0
MPICC     ?= $(shell command -v mpicc.mpich 2>/dev/null || echo mpicc)
MPICXX    ?= $(shell command -v mpicxx.mpich 2>/dev/null || echo mpicxx)
MPIEXEC   ?= $(shell command -v mpiexec.mpich 2>/dev/null || echo mpiexec)

MPI_CFLAGS := $(shell pkg-config --cflags mpich 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs mpich 2>/dev/null || echo -lmpich)
FABRIC_LIBS := $(shell pkg-config --libs libfabric 2>/dev/null || echo -lfabric)
HWLOC_LIBS := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)

WARN      := -Wall -Wextra $(if $(WERROR),-Werror)
OPT       ?= -O2 -g
SAN       := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
CFLAGS_LIB = -std=gnu11 $(OPT) $(WARN) $(SAN) -fPIC -pthread -Iinclude -Isrc $(MPI_CFLAGS)
LDLIBS_LIB = $(MPI_LIBS) $(FABRIC_LIBS) $(HWLOC_LIBS) -pthread -lm -ldl -lrt

LIB_SRCS  := $(sort $(wildcard src/*/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
HEADERS   := $(wildcard include/*.h include/mpp/*.h)

# libpangea.so -> libpangea.so.0 (the soname) -> libpangea.so.0.1.0 (the file).
SHLIB     := $(BUILD)/lib/libpangea.so
SHLIB_FILE := $(BUILD)/lib/libpangea.so.$(VERSION)
STLIB     := $(BUILD)/lib/libpangea.a
TOOLS     := $(BUILD)/bin/oshcc $(BUILD)/bin/oshc++ $(BUILD)/bin/oshrun $(BUILD)/bin/pangea-info \
             $(BUILD)/bin/pangea-tune $(BUILD)/bin/pangea-prof $(BUILD)/bin/pangea-map

# Programs built against the in-tree library.
PROG_STD    = -std=c11
PROG_CFLAGS = $(PROG_STD) -O2 -g $(WARN) $(SAN) -pthread -Iinclude -Itests/common $(MPI_CFLAGS)
PROG_LIBS   = -L$(BUILD)/lib -Wl,-rpath,$(abspath $(BUILD)/lib) -lpangea $(MPI_LIBS) -lm

SHMEM_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/shmem/*.c)) \
               $(patsubst tests/%.cpp,$(BUILD)/tests/%,$(wildcard tests/shmem/*.cpp))
ARMCI_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/armci/*.c))
UNIT_TESTS  := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/*.c tests/engine/*.c))
CXX_TESTS   := $(patsubst tests/%.cpp,$(BUILD)/tests/%,$(wildcard tests/unit/*.cpp))
# The profile tools' tests: a generator of profiles with known patterns (tests/prof/tools.sh).
TOOL_TESTS  := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/prof/*.c))
EXAMPLES    := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

# ARMCI binary compatibility, built when Debian's packages are there (tools/install-deps.sh):
# tests/armci programs compiled against Debian's ARMCI-MPI header instead of ours, and
# Global Arrays programs linked with Debian's prebuilt libga-mpich.a; both link Pangea's
# libarmci.
DEBIAN_ARMCI_H := $(wildcard /usr/include/armci.h)
GA_LIBS     := -lga-mpich -lscalapack-mpich -llapack -lblas -lgfortran
HAVE_GA     := $(filter-out libga-mpich.a,$(shell $(CC) -print-file-name=libga-mpich.a))
COMPAT_TESTS := $(if $(DEBIAN_ARMCI_H),$(patsubst %,$(BUILD)/tests/debian/%,contig strided acc_contention)) \
               $(if $(HAVE_GA),$(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/ga/*.c)))
ARMCI_LINK  := $(BUILD)/lib/libarmci.so
BENCHES     := $(patsubst perf/%.c,$(BUILD)/perf/%,$(filter-out perf/pangea-tune.c,$(wildcard perf/*.c)))

.PHONY: all lib tools tests examples bench check check-install check-docs docs install uninstall \
        demo deps format clean

all: lib tools

lib: $(SHLIB) $(STLIB) $(ARMCI_LINK)

# -larmci (Global Arrays' --with-armci) finds Pangea under the ARMCI name.
$(ARMCI_LINK): $(SHLIB)
	ln -sf libpangea.so $@
tools: $(TOOLS)

$(BUILD)/obj/%.o: %.c $(HEADERS) $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) -c $< -o $@

$(SHLIB_FILE): $(LIB_OBJS) src/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(SAN) -Wl,--version-script=src/exports.map \
	    -Wl,-soname,libpangea.so.$(SOVERSION) -o $@ $(LIB_OBJS) $(LDLIBS_LIB)

$(SHLIB): $(SHLIB_FILE)
	ln -sf libpangea.so.$(VERSION) $(BUILD)/lib/libpangea.so.$(SOVERSION)
	ln -sf libpangea.so.$(SOVERSION) $@

$(STLIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(LIB_OBJS)

# Wrapper scripts: tools/X.in with @INCDIR@ @LIBDIR@ @MPIEXEC@ @VERSION@ filled in; oshcc and
# oshc++ are both tools/oshcc.in, with @NAME@, @CCVAR@ (the variable that overrides the MPI
# wrapper) and @CC@ (MPICH's wrapper) set per language.
# $(call fill_wrapper,name,incdir,libdir,output)
wrapper_template = tools/$(if $(filter oshc++,$(1)),oshcc,$(1)).in
define fill_wrapper
	sed -e 's|@INCDIR@|$(2)|g' -e 's|@LIBDIR@|$(3)|g' -e 's|@MPIEXEC@|$(MPIEXEC)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@NAME@|$(1)|g' \
	    -e 's|@CCVAR@|$(if $(filter oshc++,$(1)),PANGEA_MPICXX,PANGEA_MPICC)|g' \
	    -e 's|@CC@|$(if $(filter oshc++,$(1)),$(MPICXX),$(MPICC))|g' \
	    $(call wrapper_template,$(1)) > $(4) && chmod +x $(4)
endef

$(BUILD)/bin/oshcc $(BUILD)/bin/oshc++: tools/oshcc.in
$(BUILD)/bin/oshrun: tools/oshrun.in
$(BUILD)/bin/oshcc $(BUILD)/bin/oshc++ $(BUILD)/bin/oshrun: Makefile
	@mkdir -p $(dir $@)
	$(call fill_wrapper,$(notdir $@),$(abspath include),$(abspath $(BUILD))/lib,$@)

$(BUILD)/bin/pangea-info: tools/pangea-info.c $(STLIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) -DPG_BUILD_CC='"$(CC)"' -DPG_BUILD_FLAGS='"$(OPT) $(SAN)"' $< -o $@ \
	    $(STLIB) $(LDLIBS_LIB)

# The tuning tool sets the engine's tunables and reopens the pipeline: it links the static
# library, like pangea-info.
$(BUILD)/bin/pangea-tune: perf/pangea-tune.c tools/plot.c tools/plot.h $(STLIB) $(HEADERS) \
                          $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) -O3 -Itools $(filter %.c,$^) -o $@ $(STLIB) $(LDLIBS_LIB)

# The profile tools (docs/profile.md) read PANGEA_PROFILE directories: pangea-prof draws
# with gnuplot; pangea-map maps with Scotch and reads topology.conf files with src/topo (from
# the static library).
SCOTCH_CFLAGS := -I/usr/include/scotch
SCOTCH_LIBS   := -lscotch -lscotcherr
TOOL_CFLAGS    = -std=gnu11 $(OPT) $(WARN) $(SAN) -Itools -Isrc
$(BUILD)/bin/pangea-prof: tools/pangea-prof.c tools/profile.c tools/plot.c tools/profile.h \
                          tools/plot.h src/prof/prof.h
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) $(filter %.c,$^) -o $@ -lm

$(BUILD)/bin/pangea-map: tools/pangea-map.c tools/profile.c tools/profile.h src/prof/prof.h \
                         src/topo/topo.h $(STLIB)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) $(SCOTCH_CFLAGS) $(filter %.c,$^) -o $@ $(STLIB) $(SCOTCH_LIBS) \
	    $(LDLIBS_LIB)

tests: $(SHMEM_TESTS) $(ARMCI_TESTS) $(COMPAT_TESTS) $(UNIT_TESTS) $(CXX_TESTS) $(TOOL_TESTS)

$(BUILD)/tests/shmem/%: tests/shmem/%.c $(SHLIB) $(wildcard tests/common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) $< -o $@ $(PROG_LIBS)

# C++ programs (the type-generic overloads), built as oshc++ would.
$(BUILD)/tests/shmem/%: tests/shmem/%.cpp $(SHLIB) $(HEADERS) $(wildcard tests/common/*.h)
	@mkdir -p $(dir $@)
	$(MPICXX) -std=c++11 -O2 -g $(WARN) $(SAN) -pedantic -pthread -Iinclude -Itests/common $< -o $@ \
	    $(PROG_LIBS)

$(BUILD)/tests/armci/%: tests/armci/%.c $(SHLIB) $(HEADERS) $(wildcard tests/common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) $< -o $@ $(PROG_LIBS)

# No -Iinclude: <armci.h> is Debian's; the forced include fails the build if it is not.
$(BUILD)/tests/debian/%: tests/armci/%.c $(SHLIB) $(wildcard tests/common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_STD) -O2 -g $(WARN) $(SAN) -pthread -Itests/common $(MPI_CFLAGS) \
	    -include tests/common/debian_armci.h $< -o $@ $(PROG_LIBS)

# Linked with -larmci, which must resolve to Pangea (not Debian's libarmci in the system path).
$(BUILD)/tests/ga/%: tests/ga/%.c $(ARMCI_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_STD) -O2 -g $(WARN) $(SAN) -pthread $(MPI_CFLAGS) $< -o $@ \
	    -L$(BUILD)/lib -Wl,-rpath,$(abspath $(BUILD)/lib) $(GA_LIBS) -larmci $(MPI_LIBS) -lm
	@ldd $@ | grep -q libpangea || { echo "$@: -larmci did not resolve to Pangea"; rm -f $@; exit 1; }

# The header checks compile as strict ISO C (C99 for the _c99 one: no _Generic).
$(BUILD)/tests/unit/header_%: PROG_STD = -std=c11 -pedantic
$(BUILD)/tests/unit/header_c99: PROG_STD = -std=c99 -pedantic

# Unit and engine tests look inside the engine: they link the static library.
$(BUILD)/tests/%: tests/%.c $(STLIB) $(HEADERS) $(wildcard tests/common/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc $< -o $@ $(STLIB) $(LDLIBS_LIB)

$(BUILD)/tests/unit/%: tests/unit/%.cpp $(SHLIB) $(HEADERS) $(wildcard tests/common/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(MPICXX) -std=c++11 -O1 $(WARN) $(SAN) -pedantic -Iinclude -Itests/common $< -o $@ $(PROG_LIBS)

examples: $(EXAMPLES)
$(BUILD)/examples/%: examples/%.c $(SHLIB)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) $< -o $@ $(PROG_LIBS)

# armci_bench is built a second time against Debian's ARMCI-MPI when it is installed, and
# startup_bench against Open MPI's OSHMEM when its oshcc (Debian's openmpi-bin and
# libopenmpi-dev) is there: perf/startup-bench.sh runs both.
ARMCI_MPI_BENCH := $(if $(DEBIAN_ARMCI_H),$(BUILD)/perf/armci_bench_armci_mpi)
OSHMEM_CC       := $(if $(wildcard /usr/lib/x86_64-linux-gnu/openmpi/include/shmem.h),/usr/bin/oshcc)
OSHMEM_BENCH    := $(if $(OSHMEM_CC),$(BUILD)/perf/startup_bench_oshmem)
bench: $(BENCHES) $(ARMCI_MPI_BENCH) $(OSHMEM_BENCH)
# topo_bench sets a tunable between two team splits, prof_bench switches profiling on and off
# (A/B in one run): static, like pangea-tune.
$(BUILD)/perf/topo_bench $(BUILD)/perf/prof_bench: $(BUILD)/perf/%: perf/%.c $(STLIB) $(HEADERS) $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -O3 -Isrc $< -o $@ $(STLIB) $(LDLIBS_LIB)

$(BUILD)/perf/%: perf/%.c $(SHLIB) $(wildcard perf/*.h) $(wildcard tests/common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -O3 $< -o $@ $(PROG_LIBS)

$(BUILD)/perf/armci_bench_armci_mpi: perf/armci_bench.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_STD) -O3 -g $(WARN) -pthread $(MPI_CFLAGS) $< -o $@ -larmci-mpich $(MPI_LIBS) -lm

$(BUILD)/perf/startup_bench_oshmem: perf/startup_bench.c
	@mkdir -p $(dir $@)
	$(OSHMEM_CC) $(PROG_STD) -O2 -g $(WARN) $< -o $@

# MPICH's UCX transport leaves allocations behind at exit that LeakSanitizer cannot attribute
# (their modules are unloaded); address and undefined-behaviour errors are still reported.
check: export ASAN_OPTIONS ?= detect_leaks=0
# UndefinedBehaviorSanitizer stops at its first report, so the test that produced it fails.
check: export UBSAN_OPTIONS ?= halt_on_error=1:print_stacktrace=1
# SANITIZE=thread: a report makes the job exit non-zero (TSan's exitcode 66), so the test
# fails. tests/tsan.supp explains each suppression. UCX's memory hooks (libucm) intercept the
# madvise of an exiting thread after TSan has retired it and crash; MPICH does not need them.
ifneq (,$(findstring thread,$(SANITIZE)))
check: export TSAN_OPTIONS ?= suppressions=$(abspath tests/tsan.supp)
check: export UCX_MEM_EVENTS ?= no
endif
# As root, the suite runs again with the PEs on two and on three emulated nodes (network
# namespaces): three give uneven nodes (8 PEs: 3 + 3 + 2) and a server with PEs of two nodes.
# The default provider there is net where libfabric has it; a 2-node pass runs over
# tcp;ofi_rxm, the layered path most clusters' RDMA providers share (verbs;ofi_rxm), a 3-node
# pass runs over the transport on MPI (PANGEA_TRANSPORT=mpi; the hybrid_traffic lines run over
# it on 2 and 3 nodes in the default passes), and a last pass runs the credit tests across 16
# nodes (16 x 1 and 16 x 2 PEs); the lines pinned to 4 and 8 nodes (only-nodes=, the
# topology's switch trees of two and three leaf switches) run in passes of their own.
check:
	@tools/install-deps.sh test
	$(MAKE) --no-print-directory all tests examples
	$(MAKE) --no-print-directory check-install
	@if tests/netns/netns-run.sh --can-run; then nodes="1 2 3"; else nodes=1; \
	    echo "check: not root or no network namespaces: the multi-node passes are SKIPPED"; fi; \
	    TEST_NODES="$$nodes" tests/run-tests.sh $(BUILD) || exit 1; \
	    if [ "$$nodes" != 1 ]; then \
	        FI_PROVIDER='tcp;ofi_rxm' TEST_NODES=2 tests/run-tests.sh $(BUILD) || exit 1; \
	        PANGEA_TRANSPORT=mpi TEST_NODES=3 tests/run-tests.sh $(BUILD) || exit 1; \
	        TEST_NODES=16 tests/run-tests.sh $(BUILD) 'engine/credit' || exit 1; \
	        TEST_PINNED_ONLY=1 TEST_NODES="4 8" tests/run-tests.sh $(BUILD) || exit 1; \
	        tests/tune/quick-netns.sh $(BUILD); fi

# A representative part of the list built with AddressSanitizer and UndefinedBehaviorSanitizer
# (in build-san), on one node and across two: any report fails the test that produced it.
SANITIZE_TESTS := ^(rma_contig|rma_strided|amo|put_batch|signal|coll_types|static_data|kill_pe|left_early|engine/ds_faults|engine/job_key|engine/credit|engine/heap_grow|armci/contig|armci/strided|armci/acc_contention|armci/gop_ops|armci/grow)$$
check-sanitize:
	$(MAKE) --no-print-directory BUILD=build-san SANITIZE=address,undefined all tests
	@if tests/netns/netns-run.sh --can-run; then nodes="1 2"; else nodes=1; fi; \
	    ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    TEST_NODES="$$nodes" tests/run-tests.sh build-san '$(SANITIZE_TESTS)'

# Install into a scratch prefix and check what a user runs there: the wrappers and an example,
# pkg-config (a static link too), the man pages, pangea-info, and that make uninstall removes
# everything (tests/install/check-install.sh); and that docs/environment.md is what
# pangea-info --doc generates from the tunables table.
check-install: all
	tests/install/check-install.sh $(BUILD)
	$(MAKE) --no-print-directory check-docs

check-docs: $(BUILD)/bin/pangea-info
	@$(BUILD)/bin/pangea-info --doc | cmp -s - docs/environment.md || { \
	    echo "check-docs: docs/environment.md is out of date: run make docs"; exit 1; }
	@echo "check-docs: docs/environment.md is up to date"

# docs/environment.md is generated from the tunables table (src/runtime/runtime.h).
docs: $(BUILD)/bin/pangea-info
	$(BUILD)/bin/pangea-info --doc > docs/environment.md

MANPAGES := $(wildcard man/*.1 man/*.3)
# What make install puts under PREFIX, relative to it (make uninstall removes these).
INSTALLED := $(patsubst %,include/%,$(notdir $(wildcard include/*.h))) \
             $(patsubst %,include/mpp/%,$(notdir $(wildcard include/mpp/*.h))) \
             lib/libpangea.so.$(VERSION) lib/libpangea.so.$(SOVERSION) lib/libpangea.so \
             lib/libpangea.a lib/libarmci.so lib/libarmci.a lib/pkgconfig/pangea.pc \
             bin/oshcc bin/oshc++ bin/oshrun bin/pangea-info bin/pangea-tune bin/pangea-prof \
             bin/pangea-map \
             $(patsubst man/%,share/man/man1/%,$(filter %.1,$(MANPAGES))) \
             share/man/man1/oshc++.1 \
             $(patsubst man/%,share/man/man3/%,$(filter %.3,$(MANPAGES))) \
             share/doc/pangea/LICENSE
INSTALL_DIRS := include/mpp lib/pkgconfig bin share/pangea share/man/man1 share/man/man3 \
                share/doc/pangea

install: all
	install -d $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALL_DIRS))
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/mpp/*.h $(DESTDIR)$(PREFIX)/include/mpp/
	install -m 755 $(SHLIB_FILE) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libpangea.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libpangea.so.$(SOVERSION)
	ln -sf libpangea.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libpangea.so
	install -m 644 $(STLIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libpangea.so $(DESTDIR)$(PREFIX)/lib/libarmci.so
	ln -sf libpangea.a $(DESTDIR)$(PREFIX)/lib/libarmci.a
	install -m 755 $(BUILD)/bin/pangea-info $(BUILD)/bin/pangea-tune $(BUILD)/bin/pangea-prof \
	    $(BUILD)/bin/pangea-map $(DESTDIR)$(PREFIX)/bin/
	$(foreach w,oshcc oshc++ oshrun,\
	    $(call fill_wrapper,$(w),$(PREFIX)/include,$(PREFIX)/lib,$(DESTDIR)$(PREFIX)/bin/$(w));)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(FABRIC_LIBS) $(HWLOC_LIBS) -pthread -lm -ldl -lrt|g' tools/pangea.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/pangea.pc
	install -m 644 $(filter %.1,$(MANPAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	ln -sf oshcc.1 $(DESTDIR)$(PREFIX)/share/man/man1/oshc++.1
	install -m 644 $(filter %.3,$(MANPAGES)) $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 LICENSE $(DESTDIR)$(PREFIX)/share/doc/pangea/

# Removes what install put there; a tuning file pangea-tune wrote is kept (and so its folder).
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))
	-cd $(DESTDIR)$(PREFIX) && rmdir -p $(INSTALL_DIRS) include 2>/dev/null || true

# The main job: packages, build, examples on 4 PEs, a short latency/bandwidth table.
demo:
	@tools/install-deps.sh run
	@$(MAKE) --no-print-directory all examples bench
	@for e in $(EXAMPLES); do echo "== $$e (4 PEs)"; $(BUILD)/bin/oshrun -np 4 $$e || exit 1; done
	@echo "== latency and bandwidth, 2 PEs on this node"
	@$(BUILD)/bin/oshrun -np 2 $(BUILD)/perf/shmem_bench -q

deps:
	@tools/install-deps.sh test

format:
	clang-format -i $(wildcard src/*/*.c src/*/*.h include/*.h tools/*.c tests/*/*.c tests/*/*.h perf/*.c examples/*.c)

clean:
	rm -rf $(BUILD)
