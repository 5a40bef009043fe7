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
            gnuplot-nox pkg-config zlib1g-dev libopenmpi-dev openmpi-bin \
            python3-h5py python3-pandas python3-matplotlib python3-nbconvert \
            jupyter-nbconvert python3-ipykernel jupyter-client

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

LIB_SRC  := $(sort $(wildcard sim/*.c policies/*.c traces/*.c))
LIB_SRC  := $(filter-out sim/cli.c,$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
# Policy plug-ins: built as shared objects, never into libgpusim.a.
PLUGIN_SRC := $(sort $(wildcard policies/examples/*.c))
PLUGIN_SO  := $(PLUGIN_SRC:policies/examples/%.c=$(B)/plugins/%.so)
DEPS_OK  := build/.deps-ok

.PHONY: all run test asan bench deps install clean check-deps plugins \
        bench-policies bench-policies-update

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
$(B)/gpusim: $(B)/sim/cli.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -rdynamic -o $@ $^ $(PKG_LIBS)

gpusim: $(B)/gpusim
	cp $< $@

$(B)/tests/%: $(B)/tests/%.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -rdynamic -o $@ $^ $(PKG_LIBS)

$(B)/plugins/%.so: policies/examples/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

# The same example built for another ABI version: the loader must refuse it.
$(B)/plugins/%-badabi.so: policies/examples/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DSJF_ABI=999 -fPIC -shared -o $@ $<

plugins: $(PLUGIN_SO)

$(B)/bench/%: $(B)/bench/%.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# --- using --------------------------------------------------------------------
run: gpusim
	./gpusim run quickstart --out quickstart.h5
	./gpusim compare quickstart --policies fifo-backfill,fair,hps,rl-lite \
	  --seeds 3 --out quickstart-compare.h5 --plots quickstart-compare-plots

# The notebook runs against a small comparison; Debian's python3 and kernel.
NB_H5 := $(B)/nb/compare.h5
test: $(TEST_BIN) $(B)/gpusim $(PLUGIN_SO) $(B)/plugins/sjf-badabi.so
	@rm -rf $(B)/nb && mkdir -p $(B)/nb
	@$(B)/gpusim compare scenarios/small-tenants.json --policies fifo-backfill,fair,hps \
	  --seeds 3 --jobs 2 --out $(NB_H5) --plots $(B)/nb/plots --quiet
	@GPUSIM_H5=$(abspath $(NB_H5)) PYDEVD_DISABLE_FILE_VALIDATION=1 \
	  PATH=/usr/bin:$$PATH jupyter-nbconvert \
	  --to notebook --execute plots/compare.ipynb --output-dir $(B)/nb \
	  --ExecutePreprocessor.timeout=300 --log-level=WARN \
	  && echo "notebook: plots/compare.ipynb executed against $(NB_H5)"
	@GPUSIM=$(B)/gpusim GS_PLUGIN_DIR=$(B)/plugins sh tests/run.sh $(TEST_BIN)

asan:
	$(MAKE) SANITIZER=address,undefined test

bench: $(BENCH_BIN) $(B)/gpusim
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# Policy regression check: every policy on bench/scenarios against
# bench/baselines.json; bench-policies-update rewrites the baselines.
bench-policies: $(B)/bench/bench_policies
	$(B)/bench/bench_policies

bench-policies-update: $(B)/bench/bench_policies
	$(B)/bench/bench_policies --update

# The binary, and the headers a policy plug-in compiles against (their
# relative includes kept): cc -I$(PREFIX)/include/gpusim ...
install: gpusim
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 gpusim $(DESTDIR)$(PREFIX)/bin/gpusim
	for d in sim policies traces; do \
	  install -d $(DESTDIR)$(PREFIX)/include/gpusim/$$d && \
	  install -m 644 $$d/*.h $(DESTDIR)$(PREFIX)/include/gpusim/$$d/ || exit 1; \
	done

clean:
	rm -rf build gpusim

.SECONDARY:
-include $(shell find build -name '*.d' 2>/dev/null)
