# dehbq - one non-recursive Makefile.  See README.md for the targets.
#
# Outputs go to $(B)/ (build/ by default, build-san/ with SANITIZE=...), so
# a sanitizer build never mixes objects with a normal one.  Libraries are
# linked through pkg-config only (Debian's check.pc adds -lsubunit etc.).

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/dehbq
PYTHON  ?= python3
PYDIR   ?=
CFLAGS  ?= -O2 -g
CC      ?= cc
FUZZCC  ?= clang
PKGS     = libcjson uuid lapacke openblas nlopt
TESTPKGS = check

ifdef SANITIZE
B ?= build-san
else
B ?= build
endif

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wvla -Wwrite-strings -Wno-format-nonliteral
# Our headers are found by #include "..." only: orchestrator/sched.h must
# not shadow the system's <sched.h>.
IQUOTE = -iquote common -iquote optim -iquote optim/models -iquote optim/mo \
	-iquote optim/search -iquote optim/sched \
	-iquote orchestrator -iquote worker -iquote cli -iquote bench/lib
# Layers are folders, and a folder's sources see only the folders below
# it: an include that goes up a layer does not compile (make
# check-layers shows it).  common/ sees itself; optim/models/ (the
# numeric models) common/; optim/mo/ (multi-objective) the models;
# optim/search/ (the searchers) the models and mo; the core in optim/
# (the optimiser interface, its books and table) all four; the
# schedulers in optim/sched/ the core too.
IQUOTE_COMMON = -iquote common
IQUOTE_MODELS = $(IQUOTE_COMMON) -iquote optim/models
IQUOTE_MO     = $(IQUOTE_MODELS) -iquote optim/mo
IQUOTE_SEARCH = $(IQUOTE_MO) -iquote optim/search
IQUOTE_OPTIM  = $(IQUOTE_SEARCH) -iquote optim
IQUOTE_SCHED  = $(IQUOTE_OPTIM) -iquote optim/sched
DEHBQ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	-D_GNU_SOURCE $(WARN) -MMD -MP $(IQUOTE) \
	$(shell pkg-config --cflags $(PKGS))
DEHBQ_LIBS = $(shell pkg-config --libs $(PKGS)) -lcsv -lm
DEHBQ_LDFLAGS =
ifdef SANITIZE
DEHBQ_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=$(SANITIZE) \
	-fno-omit-frame-pointer
DEHBQ_LDFLAGS += -fsanitize=$(SANITIZE)
endif
ifdef DEVELOPER
DEHBQ_CFLAGS += -Werror
endif

COMMON_SRCS = $(sort $(wildcard common/*.c))
OPTIM_SRCS  = $(sort $(wildcard optim/*.c optim/models/*.c optim/mo/*.c \
	optim/search/*.c optim/sched/*.c))
ORCH_SRCS   = $(filter-out orchestrator/main.c,$(sort $(wildcard orchestrator/*.c)))
WORKER_SRCS = $(filter-out worker/main.c,$(sort $(wildcard worker/*.c)))
CLI_SRCS    = $(filter-out cli/main.c,$(sort $(wildcard cli/*.c)))
TEST_SRCS   = $(sort $(wildcard tests/check_*.c)) tests/testutil.c tests/optvar.c \
	tests/enginebook.c
SUITES      = $(filter-out main,$(patsubst tests/check_%.c,%,$(sort $(wildcard tests/check_*.c))))
BENCH_SRCS  = $(sort $(wildcard bench/*.c))
BENCHFN_SRCS = $(sort $(wildcard bench/lib/*.c))
EXAMPLE_SRCS = $(sort $(wildcard examples/*.c))

obj = $(patsubst %.c,$(B)/%.o,$(1))

LIBCOMMON = $(B)/libdehbq.a
LIBOPTIM  = $(B)/liboptim.a
LIBORCH   = $(B)/liborch.a
LIBWORKER = $(B)/libworker.a
LIBCLI    = $(B)/libcli.a
LIBBENCHFN = $(B)/libbenchfn.a
PROGS     = $(B)/bin/dehbq $(B)/bin/dehbq-orchestrator $(B)/bin/dehbq-worker
EXAMPLES  = $(patsubst examples/%.c,$(B)/bin/%,$(EXAMPLE_SRCS))
BENCHES   = $(patsubst bench/%.c,$(B)/bin/%,$(BENCH_SRCS))

all: $(PROGS) $(EXAMPLES)

VERSION_TEXT := $(shell cat VERSION 2>/dev/null || echo unknown)
$(B)/common/version.o: VERSION
$(B)/common/version.o: DEHBQ_CFLAGS += -DDEHBQ_VERSION='"$(VERSION_TEXT)"'

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(DEHBQ_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(call obj,$(wildcard common/*.c)): IQUOTE = $(IQUOTE_COMMON)
$(call obj,$(wildcard optim/models/*.c)): IQUOTE = $(IQUOTE_MODELS)
$(call obj,$(wildcard optim/mo/*.c)): IQUOTE = $(IQUOTE_MO)
$(call obj,$(wildcard optim/search/*.c)): IQUOTE = $(IQUOTE_SEARCH)
$(call obj,$(wildcard optim/*.c)): IQUOTE = $(IQUOTE_OPTIM)
$(call obj,$(wildcard optim/sched/*.c)): IQUOTE = $(IQUOTE_SCHED)

# The layers hold: a header of each layer above, included from each
# layer, must not be found.
check-layers:
	@for l in "COMMON:optim.h" "COMMON:gp.h" "MODELS:mobj.h" \
		"MODELS:optim.h" "MODELS:searcher.h" "MO:optim.h" \
		"MO:searcher.h" "SEARCH:optim.h" "SEARCH:held.h" \
		"OPTIM:held.h" "OPTIM:dehb.h"; do \
		set -- $$(echo $$l | tr : ' '); \
		case $$1 in COMMON) f="$(IQUOTE_COMMON)";; \
		MODELS) f="$(IQUOTE_MODELS)";; MO) f="$(IQUOTE_MO)";; \
		SEARCH) f="$(IQUOTE_SEARCH)";; OPTIM) f="$(IQUOTE_OPTIM)";; \
		esac; \
		if echo "#include \"$$2\"" | $(CC) $$f -fsyntax-only -x c - \
			2>/dev/null; then \
			echo "layers: $$1 can include $$2"; exit 1; fi; \
	done; \
	echo '#include "gp.h"' | $(CC) $(IQUOTE_MODELS) $(shell pkg-config \
		--cflags $(PKGS)) -fsyntax-only -x c - && \
	echo "layers: an include that goes up a layer does not compile"

$(LIBCOMMON): $(call obj,$(COMMON_SRCS))
$(LIBOPTIM): $(call obj,$(OPTIM_SRCS))
$(LIBORCH): $(call obj,$(ORCH_SRCS))
$(LIBWORKER): $(call obj,$(WORKER_SRCS))
$(LIBCLI): $(call obj,$(CLI_SRCS))
$(LIBBENCHFN): $(call obj,$(BENCHFN_SRCS))
$(B)/%.a:
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

LINK = $(CC) $(DEHBQ_LDFLAGS) $(LDFLAGS) -o $@

$(B)/bin/dehbq: $(B)/cli/main.o $(LIBCLI) $(LIBORCH) $(LIBOPTIM) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(LINK) $^ $(DEHBQ_LIBS)
$(B)/bin/dehbq-orchestrator: $(B)/orchestrator/main.o $(LIBORCH) $(LIBOPTIM) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(LINK) $^ $(DEHBQ_LIBS)
$(B)/bin/dehbq-worker: $(B)/worker/main.o $(LIBWORKER) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(LINK) $^ $(DEHBQ_LIBS)
$(B)/bin/%: $(B)/examples/%.o $(LIBBENCHFN) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(LINK) $^ $(DEHBQ_LIBS)
$(B)/bin/%: $(B)/bench/%.o $(LIBCLI) $(LIBWORKER) $(LIBORCH) $(LIBOPTIM) \
		$(LIBBENCHFN) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(LINK) $^ $(DEHBQ_LIBS)

# The suite list is generated from tests/check_*.c, so a new module's
# suite is picked up without editing check_main.c.
$(B)/tests/suites.h: Makefile $(wildcard tests/check_*.c)
	@mkdir -p $(@D)
	printf '%s\n' $(foreach s,$(SUITES),'SUITE($(s))') > $@.tmp && mv $@.tmp $@
$(B)/tests/check_main.o: $(B)/tests/suites.h
$(B)/tests/check_main.o: DEHBQ_CFLAGS += -I$(B)/tests
$(call obj,$(TEST_SRCS)): DEHBQ_CFLAGS += $(shell pkg-config --cflags $(TESTPKGS)) -Itests \
	-Wno-missing-prototypes
$(B)/tests/check_main: $(call obj,$(TEST_SRCS)) $(LIBCLI) $(LIBWORKER) $(LIBORCH) \
		$(LIBOPTIM) $(LIBBENCHFN) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(LINK) $^ $(DEHBQ_LIBS) $(shell pkg-config --libs $(TESTPKGS))

# make check: unit suites, then the end-to-end TAP scripts, then a short
# fuzz smoke run.  Any failure fails the target.  check-unit and
# check-e2e are its first two parts alone.
check: deps-test
	$(MAKE) --no-print-directory check-unit
	$(MAKE) --no-print-directory check-e2e
	$(MAKE) --no-print-directory fuzz-smoke
# OpenBLAS picks its kernels by CPU, and theirs differ in the last bits,
# so a model's proposals (gp, gcp) do too: the unit suites, which compare
# trajectories bit for bit (tests/data/frozen), run on Haswell's kernels
# wherever the CPU has them (AVX2 and FMA: every x86-64 server since 2013).
BLAS_PIN := $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && \
	grep -qw fma /proc/cpuinfo && echo OPENBLAS_CORETYPE=Haswell)
# Each suite runs in its own process, as many at once as there are cores
# (tests/unit.sh; UNIT_JOBS=1 for one at a time), the slowest first: the
# optimiser contract, the crash sweep and the reload contract in parts.
SLOW_SUITES = optim:contract optim:contract2 crash:sweep1 crash:sweep2 \
	crash:sweep3 reload:part1 reload:part2 optim:backends
UNIT_ORDER  = $(SLOW_SUITES) $(filter-out crash reload optim,$(SUITES))
check-unit: all $(B)/tests/check_main check-layers
	$(BLAS_PIN) DEHBQ_TESTDATA=tests/data sh tests/unit.sh \
		$(B)/tests/check_main $(B)/unit $(UNIT_ORDER)
# The end-to-end scripts run two at a time (each in its own mkdtemp
# directory); the ones that bring up hosts or SLURM one after another,
# and first, since together they take longest.
E2E_JOBS  ?= 2
E2E_RULES  = --rules='seq=tests/{t3,t4}*.sh' --rules='par=**'
E2E_SEQ    = $(sort $(wildcard tests/t3*.sh tests/t4*.sh))
E2E_TESTS  = $(E2E_SEQ) $(filter-out $(E2E_SEQ),$(sort $(wildcard tests/t[0-9]*.sh)))
check-e2e: all
	{ DEHBQ_BIN=$(abspath $(B))/bin DEHBQ_SRC=$(CURDIR) \
		prove -f --directives -j$(E2E_JOBS) $(E2E_RULES) $(E2E_TESTS); \
		echo $$? >$(B)/prove.rc; } \
		2>&1 | tee $(B)/prove.log
	sh tests/skipped.sh $(B)/prove.log
	@exit $$(cat $(B)/prove.rc)

# The benches run on the unit suites' kernels too (BLAS_PIN): the model
# costs they measure differ by kernel (gp's at 1,000 results: 66 asks/s on
# Haswell's, 59 on Cooperlake's, same machine).
bench: all $(BENCHES)
	$(BLAS_PIN) DEHBQ_BIN=$(abspath $(B))/bin sh bench/run.sh full
bench-quick: all $(BENCHES)
	$(BLAS_PIN) DEHBQ_BIN=$(abspath $(B))/bin sh bench/run.sh quick

# Fuzzing: libFuzzer targets built with clang into build-fuzz/.
FUZZ_SRCS   = $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_B      = build-fuzz
FUZZ_BINS   = $(patsubst fuzz/%.c,$(FUZZ_B)/%,$(FUZZ_SRCS))
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 \
	-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -D_GNU_SOURCE \
	$(IQUOTE) $(shell pkg-config --cflags $(PKGS))
FUZZ_RUNS  ?= 1000000
FUZZ_SMOKE_SECS ?= 6
# The sources are compiled once into one archive (instrumented, without
# libFuzzer's main) and every target links to it.
FUZZ_LIB  = $(FUZZ_B)/libfuzzdehbq.a
FUZZ_OBJS = $(patsubst %.c,$(FUZZ_B)/%.o,$(COMMON_SRCS) $(OPTIM_SRCS) $(ORCH_SRCS))
$(FUZZ_B)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZCC) $(subst fuzzer,fuzzer-no-link,$(FUZZ_CFLAGS)) -MMD -MP -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@
	$(AR) rcs $@ $^
$(FUZZ_B)/%: fuzz/%.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZ_CFLAGS) -o $@ $^ $(DEHBQ_LIBS)
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	sh fuzz/run.sh $(FUZZ_B) runs $(FUZZ_RUNS)
fuzz-smoke:
	@if command -v $(FUZZCC) >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory fuzz-build && \
		sh fuzz/run.sh $(FUZZ_B) secs $(FUZZ_SMOKE_SECS); \
	else echo "fuzz smoke: SKIPPED ($(FUZZCC) not installed: apt-get install -y clang libclang-rt-14-dev)"; fi

chaos: all
	DEHBQ_BIN=$(abspath $(B))/bin DEHBQ_SRC=$(CURDIR) DEHBQ_CHAOS=long prove -v tests/t[0-9]*.sh

# Missing Debian packages: installed when root, else the exact command.
deps-check:
	@sh deploy/deps.sh build
deps-test:
	@sh deploy/deps.sh test

demo: deps-check all
	sh examples/demo.sh $(abspath $(B))/bin

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DATADIR)
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -m 644 docs/dehbq.1 docs/dehbq-worker.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 docs/dehbq-orchestrator.8 $(DESTDIR)$(MANDIR)/man8/
	cp -R deploy $(DESTDIR)$(DATADIR)/
	@d="$(PYDIR)"; [ -n "$$d" ] || if [ "$(PREFIX)" = "$$HOME/.local" ]; \
	then d=$$($(PYTHON) -c 'import site; \
		print(site.getusersitepackages())' 2>/dev/null); \
	else d=$$($(PYTHON) -c 'import sys; \
		print("$(PREFIX)/lib/python%d.%d/dist-packages" % \
		sys.version_info[:2])' 2>/dev/null); fi; \
	if [ -n "$$d" ]; then \
		install -d "$(DESTDIR)$$d/dehbq" && \
		install -m 644 python/dehbq/*.py "$(DESTDIR)$$d/dehbq/" && \
		echo "python package: $$d/dehbq"; \
	else echo "python package: SKIPPED ($(PYTHON) not found; set PYDIR=)"; fi

FORMAT_SRCS = $(wildcard common/*.[ch] optim/*.[ch] optim/models/*.[ch] optim/mo/*.[ch] optim/search/*.[ch] optim/sched/*.[ch] \
	orchestrator/*.[ch] worker/*.[ch] \
	cli/*.[ch] fuzz/*.c examples/*.c bench/*.c bench/lib/*.[ch] tests/check_*.c \
	tests/testutil.[ch] tests/optvar.[ch] tests/enginebook.[ch])
format-check:
	clang-format --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf build build-san build-fuzz

.PHONY: all check check-unit check-e2e check-layers bench bench-quick fuzz fuzz-build fuzz-smoke chaos \
	deps-check deps-test demo install format-check clean
.DELETE_ON_ERROR:

-include $(shell find $(B) $(FUZZ_B) -name '*.d' 2>/dev/null)
