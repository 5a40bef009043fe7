# gpusim -- plain GNU make.  `make` builds ./gpusim; `make run` runs the
# built-in quickstart; `make test` runs the whole suite; `make asan` runs it
# under AddressSanitizer and UBSan; `make bench` prints performance figures.
# Missing Debian packages are installed on first use (see `deps`).

CC      ?= gcc
PREFIX  ?= /usr/local
DESTDIR ?=
WERROR  ?= $(if $(CI),1,)
SANITIZER ?=

PKGS     := gsl libcjson hdf5 cunit
DEB_PKGS := libgsl-dev libcjson-dev libhdf5-dev libcsv-dev libcunit1-dev \
            gnuplot-nox pkg-config zlib1g-dev

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
DEPS_OK  := build/.deps-ok

.PHONY: all run test asan bench deps install clean check-deps

all: gpusim

# --- dependencies ----------------------------------------------------------
$(DEPS_OK):
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing=1; \
	for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing=1; done; \
	[ -f /usr/include/csv.h ] || missing=1; \
	[ -f /usr/include/zlib.h ] || missing=1; \
	command -v gnuplot >/dev/null 2>&1 || missing=1; \
	if [ -n "$$missing" ]; then \
	  echo "gpusim: installing Debian packages: $(DEB_PKGS)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(DEB_PKGS) \
	    || { echo "gpusim: could not install $(DEB_PKGS)"; exit 1; }; \
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

$(B)/gpusim: $(B)/sim/cli.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

gpusim: $(B)/gpusim
	cp $< $@

$(B)/tests/%: $(B)/tests/%.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(B)/bench/%: $(B)/bench/%.o $(B)/libgpusim.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# --- using --------------------------------------------------------------------
run: gpusim
	./gpusim run quickstart --out quickstart.h5

test: $(TEST_BIN) $(B)/gpusim
	@GPUSIM=$(B)/gpusim sh tests/run.sh $(TEST_BIN)

asan:
	$(MAKE) SANITIZER=address,undefined test

bench: $(BENCH_BIN) $(B)/gpusim
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

install: gpusim
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 gpusim $(DESTDIR)$(PREFIX)/bin/gpusim

clean:
	rm -rf build gpusim

.SECONDARY:
-include $(shell find build -name '*.d' 2>/dev/null)
