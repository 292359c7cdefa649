# geo: build, install, test. `make setup install demo` then `make test` (see README.md); `make quick`
# for the short loop while working.
PREFIX ?= /usr/local
BINDIR = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share
# fish reads completions by itself from its own vendor folder (/usr/share/fish/vendor_completions.d
# on Debian, as pkg-config says) and from ~/.local/share/fish/vendor_completions.d, but from
# $(PREFIX)/share/fish/vendor_completions.d only when XDG_DATA_DIRS names $(PREFIX)/share, which a
# plain fish over ssh or in tmux does not have. So geo.fish goes where fish looks with
# XDG_DATA_DIRS unset: the user's folder for PREFIX=$HOME/.local, fish's own otherwise.
ifeq ($(PREFIX),$(HOME)/.local)
FISHDIR ?= $(PREFIX)/share/fish/vendor_completions.d
else
FISHDIR ?= $(or $(shell pkg-config --variable completionsdir fish 2>/dev/null),/usr/share/fish/vendor_completions.d)
endif
SWIFT ?= swift
PYTHON ?= python3
# Root installs directly; anyone else goes through sudo for the system packages.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

APT_PACKAGES = libproj-dev pkg-config time tmux jq geographiclib-tools proj-bin mandoc man-db zsh fish bash-completion gdal-bin default-jre-headless parallel libjs-leaflet libcairo2-dev librsvg2-bin poppler-utils \
	libsqlite3-dev sqlite3 zlib1g-dev chromium \
	dpkg-dev lintian
PIP_PACKAGES = polyline pytest pytest-xdist pyproj geographiclib shapely pyspark pillow pmtiles

.PHONY: all build setup install uninstall deb docs demo test quick layering unit-test e2e-test fuzz-smoke sanitize bench clean

all: build

## setup: install the system and Python packages that building and testing need
setup:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@$(PYTHON) -c "import polyline, pytest, xdist, pyproj, geographiclib, shapely, pyspark, PIL, pmtiles" 2>/dev/null || \
		$(PYTHON) -m pip install -q $(PIP_PACKAGES) 2>/dev/null || \
		$(PYTHON) -m pip install -q --break-system-packages $(PIP_PACKAGES)

## build: the release binaries, .build/release/geo and geo-fuzz (the replayer of fuzz inputs the tests run)
# One product at a time: a plain `swift build` compiles every module twice, the second time as the
# tool the GenerateManual and GenerateCompletions plugins depend on (.build/release/Modules-tool),
# which only `make docs` uses: twice the CPU time for the same binaries.
build:
	$(SWIFT) build -c release --product geo
	$(SWIFT) build -c release --product geo-fuzz

# The release binary as a file: install and deb run swift only when a source is newer than it
# (a swift build with nothing to do, and its --show-bin-path, still cost seconds of planning).
RELEASE_BIN = .build/release/geo
$(RELEASE_BIN): Package.swift $(shell find Sources -type f)
	$(SWIFT) build -c release --product geo
	@touch $@

## install: geo, its man pages and its bash/zsh/fish completions under $(PREFIX) (default /usr/local)
install: $(RELEASE_BIN)
	install -d "$(BINDIR)" "$(SHAREDIR)/man/man1" "$(SHAREDIR)/bash-completion/completions" \
		"$(SHAREDIR)/zsh/site-functions" "$(DESTDIR)$(FISHDIR)"
	install -m 755 $(RELEASE_BIN) "$(BINDIR)/geo"
	install -m 644 man/man1/*.1 "$(SHAREDIR)/man/man1/"
	install -m 644 completions/geo.bash "$(SHAREDIR)/bash-completion/completions/geo"
	install -m 644 completions/_geo "$(SHAREDIR)/zsh/site-functions/_geo"
	install -m 644 completions/geo.fish "$(DESTDIR)$(FISHDIR)/geo.fish"

uninstall:
	rm -f "$(BINDIR)/geo" "$(SHAREDIR)"/man/man1/geo.1 "$(SHAREDIR)"/man/man1/geo-*.1 \
		"$(SHAREDIR)/bash-completion/completions/geo" "$(SHAREDIR)/zsh/site-functions/_geo" \
		"$(DESTDIR)$(FISHDIR)/geo.fish"

## deb: the Debian package dist/geo_<version>_<arch>.deb (DIST=folder for another place), from
## the release binary: no Swift toolchain needed where it is installed (packaging/build-deb.sh)
deb: $(RELEASE_BIN)
	packaging/build-deb.sh $(RELEASE_BIN)

## docs: regenerate man/ and completions/ from the command descriptions (SwiftPM plugins)
docs:
	$(SWIFT) package --allow-writing-to-package-directory generate-manual
	$(SWIFT) package --allow-writing-to-package-directory generate-completions

## demo: a small pipeline on the bundled sample, with the installed geo
demo:
	"$(BINDIR)/geo" decode examples/routes.polyline \
		| jq -c '{points: (.geometry.coordinates | length), first: .geometry.coordinates[0]}'
	"$(BINDIR)/geo" encode --to geojson examples/routes.ndjson | jq -r '[.id, .properties.polyline] | @tsv'

## test: every test (CI's command) — unit tests (XCTest), a short run of every fuzz harness under
## AddressSanitizer, and every end-to-end test of the release binary (pytest), the slow ones too
test: build layering unit-test fuzz-smoke e2e-test

## quick: the loop while working: the release build, the layering check and the end-to-end tests
## not marked slow (the scale runs); no XCTest, no fuzzing. `make test` runs them all
quick: build layering
	@$(MAKE) --no-print-directory e2e-test E2E_SELECT='-m "not slow"'

## layering: the module arrows of docs/ARCHITECTURE.md against Package.swift and the imports
layering:
	$(PYTHON) Tests/Layering/check_layers.py

# In a TMPDIR of the run's own, removed after: OptionDeclarationTests reads tiles' sample
# arguments, which make their output folder under $TMPDIR.
unit-test:
	tmp=$$(mktemp -d -t geo-unit-test-XXXXXX) && status=0 && \
		{ TMPDIR=$$tmp $(SWIFT) test --disable-swift-testing || status=$$?; }; rm -rf "$$tmp"; exit $$status

# The end-to-end tests in E2E_JOBS processes (pytest-xdist; auto: one a CPU; 0: in pytest's own
# process, for --pdb), the tests that share a module's fixture in one of them (loadgroup, see
# conftest.py), the 15 slowest named at the end. E2E_SELECT picks tests: `make e2e-test
# E2E_SELECT='-m "not slow"'` (what `make quick` runs), or `-k tiles`. The binary by its path:
# `swift build --show-bin-path` would plan the whole build again to print it.
E2E_JOBS ?= auto
E2E_SELECT ?=
e2e-test:
	GEO_BIN="$(CURDIR)/.build/release/geo" $(PYTHON) -m pytest -q -n $(E2E_JOBS) --dist loadgroup --durations=15 \
		Tests/EndToEnd $(E2E_SELECT)

## fuzz-smoke: each libFuzzer harness for 15 s (fuzz/run.sh SECONDS for longer runs)
fuzz-smoke:
	fuzz/run.sh 15

## sanitize: unit tests and the end-to-end suite against AddressSanitizer builds (swiftc has no
## UndefinedBehaviorSanitizer on Linux; Swift itself traps on overflow and bounds errors)
sanitize:
	LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp $(SWIFT) test --disable-swift-testing --sanitize address --build-path .build/asan
	$(SWIFT) build -c release --sanitize address --product geo --build-path .build/asan
	$(SWIFT) build -c release --sanitize address --product geo-fuzz --build-path .build/asan
	GEO_BIN="$$($(SWIFT) build -c release --build-path .build/asan --show-bin-path)/geo" ASAN_OPTIONS=detect_leaks=0 GEO_SANITIZED=1 \
		$(PYTHON) -m pytest -q Tests/EndToEnd --ignore=Tests/EndToEnd/test_distributed.py \
		--ignore=Tests/EndToEnd/test_package.py

## bench: geo against the Python peers on the shared corpus (see bench/README.md)
bench: build
	$(PYTHON) bench/run.py

clean:
	rm -rf .build bench/out dist
