# gpusim -- plain GNU make.  `make` builds ./gpusim; `make run` runs the
# built-in quickstart; `make test` runs the whole suite; `make asan` runs it
# under AddressSanitizer and UBSan; `make bench` prints performance figures.
# Missing Debian packages are installed on first use (see `deps`).

CC      ?= gcc
PREFIX  ?= /usr/local
DESTDIR ?=
WERROR  ?= $(if $(CI),1,)
SANITIZER ?=

# ompi-c: Open MPI, for `mpirun -np N gpusim plan|sweep` (mpirun.h).
PKGS     := gsl libcjson hdf5 cunit ompi-c
DEB_PKGS := libgsl-dev libcjson-dev libhdf5-dev libcsv-dev libcunit1-dev \
            gnuplot-nox pkg-config zlib1g-dev clang libclang-rt-dev \
            libopenmpi-dev openmpi-bin \
            python3-h5py python3-pandas python3-matplotlib python3-nbconvert \
            jupyter-nbconvert python3-ipykernel jupyter-client \
            help2man bash-completion chromium python3-jsonschema

WARN   := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT    := -O2 -g
ifneq ($(SANITIZER),)
  OPT  := -O1 -g -fno-omit-frame-pointer -fsanitize=$(SANITIZER) \
          -fno-sanitize-recover=undefined
  LDSAN := -fsanitize=$(SANITIZER)
  B    := build/san
else
  B    := build/rel
endif
ifneq ($(WERROR),)
  WARN += -Werror
endif

# Evaluated when a recipe runs, i.e. after `deps` has installed pkg-config.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lz -lm -ldl
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -MMD -MP $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(LDSAN) $(LDFLAGS)

LIB_SRC  := $(sort $(wildcard sim/*/*.c policies/*.c traces/*.c))
LIB_SRC  := $(filter-out sim/cli/cli.c,$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
# Policy plug-ins: built as shared objects, never into libgpusim.a.
PLUGIN_SRC := $(sort $(wildcard policies/examples/*.c))
PLUGIN_SO  := $(PLUGIN_SRC:policies/examples/%.c=$(B)/plugins/%.so)
DEPS_OK  := build/.deps-ok

.PHONY: all run test test-long san-quick asan bench deps refcheck refcheck-update docs/hdf5.md install uninstall clean check-deps plugins \
        bench-full bench-policies bench-policies-update fuzz fuzz-build fuzz-check schema

all: gpusim

# --- dependencies ----------------------------------------------------------
$(DEPS_OK):
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing=1; \
	for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing=1; done; \
	[ -f /usr/include/csv.h ] || missing=1; \
	[ -f /usr/include/zlib.h ] || missing=1; \
	command -v gnuplot >/dev/null 2>&1 || missing=1; \
	command -v mpirun >/dev/null 2>&1 || missing=1; \
	command -v jupyter-nbconvert >/dev/null 2>&1 || missing=1; \
	command -v clang >/dev/null 2>&1 || missing=1; \
	command -v help2man >/dev/null 2>&1 || missing=1; \
	command -v chromium >/dev/null 2>&1 || missing=1; \
	echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' | \
	  clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1 || missing=1; \
	/usr/bin/python3 -c 'import h5py, pandas, matplotlib, nbconvert, ipykernel' \
	  >/dev/null 2>&1 || missing=1; \
	if [ -n "$$missing" ]; then \
	  echo "gpusim: installing Debian packages (apt-get's output goes to" \
	       "build/deps.log): $(DEB_PKGS)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  mkdir -p build; \
	  { $$SUDO apt-get update && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y \
	      $(DEB_PKGS); } >build/deps.log 2>&1 \
	    || { tail -n 20 build/deps.log; \
	         echo "gpusim: could not install $(DEB_PKGS); see build/deps.log"; \
	         exit 1; }; \
	  echo "gpusim: Debian packages installed"; \
	fi
	@mkdir -p build && touch $@

deps: $(DEPS_OK)

# --- building ------------------------------------------------------------------
$(B)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(B)/libgpusim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# -rdynamic: policy plug-ins call the gs_sim_* functions of the executable.
$(B)/gpusim: $(B)/sim/cli/cli.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -rdynamic -o $@ $^ $(PKG_LIBS)

gpusim: $(B)/gpusim
	cp $< $@

# The allocation-failure build (tests/allocfail/inject.c): gpusim's own
# allocations and cJSON's go through a counter that fails the Nth one.
comma := ,
ALLOC_WRAP := $(addprefix -Wl$(comma)--wrap=,malloc calloc realloc strdup \
                strndup asprintf realpath mmap mremap)
$(B)/gpusim-allocfail: $(B)/sim/cli/cli.o $(B)/tests/allocfail/inject.o \
                       $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -rdynamic $(ALLOC_WRAP) -o $@ $^ $(PKG_LIBS)

$(B)/tests/%: $(B)/tests/%.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -rdynamic -o $@ $(filter %.o,$^) \
	  $(filter %.a,$^) $(PKG_LIBS)

# The example model (tests/models/): built outside sim/, linked in by the
# test that registers it.
$(B)/tests/test_examplemodel: $(B)/tests/models/gpuhours.o

$(B)/plugins/%.so: policies/examples/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

# The same example built for another ABI version: the loader must refuse it.
$(B)/plugins/%-badabi.so: policies/examples/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DSJF_ABI=999 -fPIC -shared -o $@ $<

# Plug-ins the tests load (tests/plugins/): ones that crash, hang or write
# where they should not, for compare and test_workers.
TESTPLUGIN_SO := $(patsubst tests/plugins/%.c,$(B)/testplugins/%.so,$(wildcard tests/plugins/*.c))
$(B)/testplugins/%.so: tests/plugins/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

# Every plug-in the tests load: the examples and the bad-ABI build.
plugins: $(PLUGIN_SO) $(B)/plugins/sjf-badabi.so

# The test programs that load plug-ins depend on them: making one of them
# alone (make build/rel/tests/test_policies) rebuilds a plug-in that a
# header change left stale (the .so rules' headers come from their .d).
$(B)/tests/test_policies: $(PLUGIN_SO) $(B)/plugins/sjf-badabi.so
$(B)/tests/test_cli $(B)/tests/test_workers: $(TESTPLUGIN_SO)

# test_install runs make on its own build: it passes SANITIZER on, or make
# would rebuild build/san's stale objects without the sanitizer.
$(B)/tests/test_install.o: CFLAGS_ALL += -DGS_TEST_SANITIZER='"$(SANITIZER)"'

$(B)/bench/%: $(B)/bench/%.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# --- using --------------------------------------------------------------------
run: gpusim
	./gpusim run quickstart --out quickstart.h5
	./gpusim compare quickstart --policies fifo-backfill,fair,hps,rl-lite \
	  --seeds 3 --out quickstart-compare.h5 --plots quickstart-compare-plots

# The notebook runs against a small comparison; Debian's python3 and kernel.
NB_H5 := $(B)/nb/compare.h5
# The fuzz targets' replay (fuzz-check: a clang ASan+UBSan build of the
# whole library, the costliest part of the suite) runs in `make
# test-long`, which CI runs after `make test`.
test: $(TEST_BIN) $(B)/gpusim $(PLUGIN_SO) $(B)/plugins/sjf-badabi.so \
      $(TESTPLUGIN_SO) $(B)/gpusim-allocfail
	@rm -rf $(B)/nb && mkdir -p $(B)/nb
	@$(B)/gpusim compare scenarios/small-tenants.json --policies fifo-backfill,fair,hps \
	  --seeds 3 --jobs 2 --out $(NB_H5) --plots $(B)/nb/plots --quiet
	@GPUSIM_H5=$(abspath $(NB_H5)) PYDEVD_DISABLE_FILE_VALIDATION=1 \
	  PATH=/usr/bin:$$PATH jupyter-nbconvert \
	  --to notebook --execute plots/compare.ipynb --output-dir $(B)/nb \
	  --ExecutePreprocessor.timeout=300 --log-level=WARN \
	  && echo "notebook: plots/compare.ipynb executed against $(NB_H5)"
	@GPUSIM=$(B)/gpusim GS_PLUGIN_DIR=$(B)/plugins sh tests/run.sh $(TEST_BIN)
	@sh tests/refcheck.sh $(B)/gpusim >$(B)/refcheck.out 2>&1 & r=$$!; \
	  $(MAKE) --no-print-directory check-layers; c=$$?; \
	  wait $$r; rr=$$?; cat $(B)/refcheck.out; [ $$rr -eq 0 ] && [ $$c -eq 0 ]

# The layers (tests/check_layers.py, docs/layout.md): includes and the
# symbols each folder's objects take from the others, no struct gs_diag
# left without an initializer in a function, and (strict) no function over
# 150 lines nor file over 1,500; then a test that it catches a planted
# upward include, extern, cross-model include and uninitialised gs_diag.
check-layers: $(B)/libgpusim.a
	@python3 tests/check_layers.py --obj $(B) --strict-lengths
	@sh tests/check_layers_test.sh $(B)

# The slow exhaustive variants (GS_TEST_LONG=1): every test program whose
# source asks for them (gs_test_long, tests/cutest.h), then the fuzz
# targets over their seeds and regression inputs (fuzz-check) and the
# sanitizer pass (san-quick); run by CI after `make test`.
LONG_SRC := $(shell grep -lE 'gs_test_long|GS_TEST_LONG' $(TEST_SRC) /dev/null)
LONG_BIN := $(LONG_SRC:tests/%.c=$(B)/tests/%)
test-long: $(LONG_BIN) $(B)/gpusim fuzz-check
	@GS_TEST_LONG=1 GPUSIM=$(B)/gpusim GS_PLUGIN_DIR=$(B)/plugins \
	  sh tests/run.sh $(LONG_BIN)
	@$(MAKE) --no-print-directory san-quick

# A sanitizer pass (ASan with LeakSanitizer, UBSan) over the test programs
# that feed gpusim what a user gives it -- scenarios, traces, imports, file
# names -- built into build/san; make test-long runs it, `make asan` is
# the whole suite (docs/reliability.md, "The sanitizer build").
SAN_QUICK := test_bounds test_jsoncheck test_input test_source test_traces \
             test_import test_tracecli test_outfile
san-quick:
	@$(MAKE) --no-print-directory SANITIZER=address,undefined \
	  build/san/gpusim $(SAN_QUICK:%=build/san/tests/%)
	@GPUSIM=build/san/gpusim sh tests/run.sh $(SAN_QUICK:%=build/san/tests/%)

# The outputs that must not move (tests/refcheck.sh); refcheck-update
# rewrites tests/refs/ after a change that moves them on purpose.
refcheck: $(B)/gpusim
	@sh tests/refcheck.sh $(B)/gpusim

refcheck-update: $(B)/gpusim
	@sh tests/refcheck.sh $(B)/gpusim --update

# The scenarios' JSON Schema, made from the parser's key tables; shipped
# and installed with the scenarios (tests/test_schema.c checks it is
# current).
schema: $(B)/gpusim
	$(B)/gpusim scenario --schema >scenarios/gpusim.schema.json

# docs/hdf5.md: every dataset and column of the files the shipped scenarios
# write, with type, units and description as the writer puts them there
# (tests/hdf5doc.sh, plots/h5doc.py); test_docs fails when it is stale.
docs/hdf5.md: $(B)/gpusim plots/h5doc.py tests/hdf5doc.sh
	@sh tests/hdf5doc.sh $(B)/gpusim --update

asan:
	$(MAKE) SANITIZER=address,undefined test

# Every benchmark runs; one that fails (a check it makes, such as
# bench_tenants' ratio to fifo) fails `make bench` at the end.
bench: $(BENCH_BIN) $(B)/gpusim
	@bad=""; for b in $(BENCH_BIN); do echo "== $$b"; GPUSIM=$(B)/gpusim $$b || bad="$$bad $$b"; \
	done; if [ -n "$$bad" ]; then echo "bench: failed:$$bad"; exit 1; fi

# Issue 27's whole grid: bench_tenants at T = 1, 4, 16, 64, 256 and 200 k
# and 1 M jobs, every cell timed (an hour or more on the idle 2-core
# machine); CI does not run it.
bench-full: $(B)/bench/bench_tenants
	$(B)/bench/bench_tenants --full

# --- fuzzing (fuzz/): libFuzzer targets, one a parser, built with clang
# under ASan and UBSan over their own copy of the library.  `make fuzz`
# runs each for FUZZ_TIME seconds (FUZZ_JOBS at a time) on a corpus kept
# in build/fuzz/corpus; `make fuzz-check` (part of `make test-long`) runs
# each over its seeds and regression inputs plus FUZZ_CHECK_TIME seconds,
# FUZZ_JOBS at a time, each target's lines printed whole when it ends.
FUZZ_CC     ?= clang
FUZZ_TIME   ?= 600
FUZZ_JOBS   ?= 2
FUZZ_CHECK_TIME ?= 2
FZ          := build/fuzz
FUZZ_SRC    := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_NAMES  := $(FUZZ_SRC:fuzz/fuzz_%.c=%)
FUZZ_BIN    := $(FUZZ_NAMES:%=$(FZ)/fuzz_%)
FUZZ_OBJ    := $(LIB_SRC:%.c=$(FZ)/%.o)
FUZZ_CFLAGS  = -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=undefined \
               $(WARN) -Wno-unused-command-line-argument -Wno-string-concatenation -MMD -MP $(PKG_CFLAGS)
FUZZ_RUN    := -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
               -print_final_stats=1

$(FZ)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FZ)/libgpusim.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FZ)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(FZ)/libgpusim.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	  -DFZ_FIXTURES='"$(abspath tests/fixtures)"' -o $@ $< \
	  $(FZ)/libgpusim.a $(PKG_LIBS)

fuzz-build: $(FUZZ_BIN)

$(FZ)/seeds: fuzz/seed.sh $(wildcard fuzz/seeds/* fuzz/regress/*/*) $(B)/gpusim
	@GPUSIM=$(B)/gpusim sh fuzz/seed.sh $@.new && rm -rf $@ && mv $@.new $@

fuzz-check: $(FUZZ_BIN) $(FZ)/seeds
	@: >$(FZ)/check.lock; printf '%s\n' $(FUZZ_NAMES) | \
	  xargs -P $(FUZZ_JOBS) -I T sh -c '\
	  mkdir -p $(FZ)/check/T; \
	  if $(FZ)/fuzz_T $(FUZZ_RUN) -max_total_time=$(FUZZ_CHECK_TIME) \
	    -artifact_prefix=$(FZ)/crash-T- \
	    $(FZ)/check/T $(FZ)/seeds/T >$(FZ)/check-T.log 2>&1; then \
	    echo "fuzz: T: $$(grep -o "stat::number_of_executed_units: *[0-9]*" \
	      $(FZ)/check-T.log | grep -o "[0-9]*$$") inputs, no failure" \
	      >$(FZ)/check-T.report; rc=0; \
	  else { tail -n 40 $(FZ)/check-T.log; echo "fuzz: T FAILED"; } \
	      >$(FZ)/check-T.report; rc=1; fi; \
	  flock $(FZ)/check.lock cat $(FZ)/check-T.report; exit $$rc'

fuzz: $(FUZZ_BIN) $(FZ)/seeds
	@printf '%s\n' $(FUZZ_NAMES) | xargs -P $(FUZZ_JOBS) -I T sh -c '\
	  mkdir -p $(FZ)/corpus/T; \
	  nice $(FZ)/fuzz_T $(FUZZ_RUN) -max_total_time=$(FUZZ_TIME) \
	    -artifact_prefix=$(FZ)/crash-T- $(FZ)/corpus/T $(FZ)/seeds/T \
	    >$(FZ)/fuzz-T.log 2>&1; rc=$$?; \
	  echo "fuzz: T: $$(grep -o "stat::number_of_executed_units: *[0-9]*" \
	    $(FZ)/fuzz-T.log | grep -o "[0-9]*$$") executions, exit $$rc"; \
	  exit $$rc'

# Policy regression check: every policy on bench/scenarios against
# bench/baselines.json; bench-policies-update rewrites the baselines.  The
# binary and whatever it needs are built with WERROR=1, as `make WERROR=1
# test` builds: objects do not record their flags, so an object a plain
# build compiled (after a merge, a header change) was taken as it was by
# the next WERROR=1 build, its warnings never made errors; and after that
# build, this compiles nothing again.
bench-policies:
	@$(MAKE) --no-print-directory WERROR=1 $(B)/bench/bench_policies
	$(B)/bench/bench_policies

bench-policies-update:
	@$(MAKE) --no-print-directory WERROR=1 $(B)/bench/bench_policies
	$(B)/bench/bench_policies --update

# --- packaging: make install / uninstall -------------------------------------
# PREFIX/bin/gpusim; its man page (generated from the help texts by
# help2man, packaging/manpage.sh); bash completion; plot scripts, notebooks
# and example scenarios under PREFIX/share/gpusim (the installed binary
# finds its plots there: compare.c's find_scripts); the headers a plug-in
# compiles against -- policies/policy.h, sim/sim.h and what they include,
# relative layout kept -- under PREFIX/include/gpusim; gpusim.pc for this
# PREFIX; README.md and docs/ under PREFIX/share/doc/gpusim.
# `make uninstall` removes exactly these.
VERSION    := $(shell sed -n 's/^\#define GS_VERSION "\(.*\)"/\1/p' sim/base/version.h)
PLUGIN_ABI := $(shell sed -n 's/^\#define GS_POLICY_ABI *\([0-9]*\).*/\1/p' policies/policy.h)
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/gpusim
MANDIR     ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INCDIR     ?= $(PREFIX)/include/gpusim
PCDIR      ?= $(PREFIX)/lib/pkgconfig
DOCDIR     ?= $(PREFIX)/share/doc/gpusim
# The public headers: the closure of what a plug-in includes.
PUBLIC_H    = $(shell printf '\043include "policies/policy.h"\n\043include "sim/sim.h"\n' | \
                $(CC) -MM -I. $(PKG_CFLAGS) -x c - 2>/dev/null | tr ' \\' '\n\n' | \
                grep '\.h$$' | grep -v '^/' | xargs realpath -m --relative-to=. | \
                sort -u)
DATA_FILES := $(sort $(wildcard plots/*.gp plots/*.ipynb plots/*.py))
SCEN_FILES := $(sort $(wildcard scenarios/*.json scenarios/*.csv))
DOC_FILES  := $(sort $(wildcard docs/*))

$(B)/gpusim.1: $(B)/gpusim packaging/manpage.sh
	sh packaging/manpage.sh $(B)/gpusim $@

# gpusim.pc is written at install time for the PREFIX being installed (a
# file made once and kept in $(B) would carry an earlier PREFIX along).
install: $(B)/gpusim $(B)/gpusim.1
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DATADIR)/plots \
	  $(DESTDIR)$(DATADIR)/scenarios $(DESTDIR)$(PCDIR) \
	  $(DESTDIR)$(DOCDIR)
	install -m 644 README.md $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	install -m 755 $(B)/gpusim $(DESTDIR)$(BINDIR)/gpusim
	install -m 644 $(B)/gpusim.1 $(DESTDIR)$(MANDIR)/gpusim.1
	install -m 644 packaging/gpusim.bash $(DESTDIR)$(BASHCOMPDIR)/gpusim
	install -m 644 $(DATA_FILES) $(DESTDIR)$(DATADIR)/plots/
	install -m 644 $(SCEN_FILES) $(DESTDIR)$(DATADIR)/scenarios/
	for h in $(PUBLIC_H); do \
	  install -d $(DESTDIR)$(INCDIR)/$$(dirname $$h) && \
	  install -m 644 $$h $(DESTDIR)$(INCDIR)/$$h || exit 1; \
	done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@ABI@|$(PLUGIN_ABI)|' packaging/gpusim.pc.in \
	    >$(DESTDIR)$(PCDIR)/gpusim.pc
	chmod 644 $(DESTDIR)$(PCDIR)/gpusim.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpusim $(DESTDIR)$(MANDIR)/gpusim.1 \
	  $(DESTDIR)$(BASHCOMPDIR)/gpusim $(DESTDIR)$(PCDIR)/gpusim.pc
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(DOCDIR)

# What `make run` writes, removed by `make clean` with the build.
RUN_OUTPUTS := quickstart.h5 quickstart-compare.h5 quickstart-compare-plots

# Also what `make run` wrote.
clean:
	rm -rf build gpusim $(RUN_OUTPUTS)

.SECONDARY:
# The header dependencies -MMD wrote: build's and B's, which may lie
# elsewhere (B=/abs/path).
-include $(sort $(shell find build $(B) -name '*.d' 2>/dev/null))
