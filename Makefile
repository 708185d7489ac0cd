# The README's commands. CMake does the building; this file only strings steps together.
#   make deps   install the Debian packages the build needs (apt-get; sudo when not root)
#   make build  configure and build in $(BUILD_DIR)
#   make test   deps (with the browser test's chromium, chromium-driver, python3-selenium) + build + ctest
#   make clean  remove $(BUILD_DIR)
#   make demo   deps + build, then run warpwatchd on the demo and print its events
#   make package  deps + build, then the Debian package $(BUILD_DIR)/warpwatch_<version>_<arch>.deb
#   make format        clang-format every C++/CUDA source in place (.clang-format)
#   make format-check  fail, naming file:line, where a source is not formatted (CI runs it)
#   make bench-deps    install what `warpwatch bench e2e --plot` needs (gnuplot-nox); not CI's
#   make fuzz          build the libFuzzer targets (clang, ASan + UBSan) in $(FUZZ_BUILD_DIR) and run
#                      each for FUZZ_SECONDS (tests/fuzz/README.md); not CI's (`make test` replays the
#                      corpus and findings as ordinary tests)
#   make soak   deps + build, then the soak (tests/soak/soak.py): SOAK_SECONDS at load with
#               faults, then a reconciliation table; not CI's
#   make test-asan  deps, then build-asan (gcc, AddressSanitizer + UndefinedBehaviorSanitizer,
#                   cpu only) and ctest on the cpu suites; any report fails. Not CI's: the
#                   build takes half an hour or more on two cores
#   make test-tsan  deps, then build-tsan (ThreadSanitizer, cpu only) and ctest on the daemon
#                   and ingest suites; any report fails. Not CI's, for the same reason
# Variables: BUILD_DIR, BUILD_TYPE, WARPWATCH_CUDA (AUTO|ON|OFF), CUDA_ARCHITECTURES,
# WERROR (ON in CI), JOBS, SAN_TIME_SCALE (test-asan, test-tsan).
BUILD_DIR ?= build
BUILD_TYPE ?= Release
WARPWATCH_CUDA ?= AUTO
WERROR ?= OFF
JOBS ?= $(shell nproc)
CUDA_ARCHITECTURES ?=

# prometheus-alertmanager: the Alertmanager sink's tests run a real one on loopback.
# mosquitto (the broker, with mosquitto_passwd) and openssl (test certificates) are for the
# MQTT tests, which run a real broker.
# python3-influxdb: InfluxData's Python client, the tests' independent writer of line protocol
# (tests/stream/sources/test_influx_client.cpp; Debian does not package Telegraf).
DEB_PACKAGES := cmake g++ make pkg-config \
  libgtest-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev \
  libspdlog-dev libfmt-dev libhwy-dev libzmq3-dev cppzmq-dev libboost-dev \
  libsystemd-dev prometheus-cpp-dev libfftw3-dev libssl-dev clang-format \
  prometheus-alertmanager systemd procps dpkg-dev file help2man \
  libmosquitto-dev mosquitto openssl python3-influxdb librdkafka-dev \
  zlib1g-dev python3-venv libjs-dygraphs

# libjs-dygraphs (above) is built into warpwatchd: the console's charts (daemon/service/console/).
# The console's browser test (tests/console/) drives Debian's chromium with selenium: `make
# test` (CI's path) installs these with the rest, in the one apt-get install of `deps`.
BROWSER_DEB_PACKAGES := chromium chromium-driver python3-selenium

CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DWARPWATCH_CUDA=$(WARPWATCH_CUDA) \
  -DWARPWATCH_WERROR=$(WERROR)
ifneq ($(strip $(CUDA_ARCHITECTURES)),)
CMAKE_FLAGS += -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHITECTURES)
endif

# `warpwatch bench e2e --plot` draws with gnuplot: installed by `make bench-deps` only, so
# that the build and the tests (CI) stay lean.
BENCH_DEB_PACKAGES := gnuplot-nox

.PHONY: deps bench-deps configure build test clean demo format format-check package fuzz fuzz-deps soak \
  test-asan test-tsan

# `make fuzz`: clang's libFuzzer (Debian's clang ships it), in a build of its own.
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_DEB_PACKAGES := clang

bench-deps: DEB_PACKAGES := $(BENCH_DEB_PACKAGES)
bench-deps: deps

fuzz-deps: DEB_PACKAGES += $(FUZZ_DEB_PACKAGES)
fuzz-deps: deps

fuzz: fuzz-deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DWARPWATCH_CUDA=OFF -DWARPWATCH_FUZZ=ON
	cmake --build $(FUZZ_BUILD_DIR) --target fuzz_targets -j $(JOBS)
	tests/fuzz/run_fuzz.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; exit 0; fi; \
	echo "deps: installing$$missing"; \
	sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	$$sudo apt-get update -q && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing

configure:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: DEB_PACKAGES += $(BROWSER_DEB_PACKAGES)
test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD_DIR)

# cpack (cmake/packaging.cmake): dpkg-shlibdeps finds the dependencies, help2man writes the
# man pages.
package: build
	cmake --build $(BUILD_DIR) --target package

# The sources git knows (a fresh clone's), formatted by the committed .clang-format.
SOURCES = git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh'
format: deps
	$(SOURCES) | xargs clang-format -i
format-check: deps
	$(SOURCES) | xargs clang-format --dry-run --Werror

# The demo: warpwatchd replays a generated series (config/examples/demo.yaml) and
# `warpwatch tail` prints the events it publishes; the daemon drains and exits when the
# replay is done, printing a summary.
DEMO_ENDPOINT ?= tcp://127.0.0.1:5556
demo:
	@mkdir -p $(BUILD_DIR)
	@echo "demo: building (the output goes to $(BUILD_DIR)/demo-build.log) ..."
	@$(MAKE) --no-print-directory build >$(BUILD_DIR)/demo-build.log 2>&1 || \
	  { tail -n 40 $(BUILD_DIR)/demo-build.log; echo "demo: the build failed"; exit 1; }
	@python3 config/examples/demo/demo.py --build-dir $(BUILD_DIR)

# The soak (docs/operations.md §8.3): the real warpwatchd, a Mosquitto broker and `warpwatch load`
# for SOAK_SECONDS with random faults, then it reconciles /metrics and the events file and
# exits non-zero when a line does not add up. Not in CI (it takes minutes).
SOAK_SECONDS ?= 600
soak: build
	python3 tests/soak/soak.py --seconds $(SOAK_SECONDS) --build-dir $(BUILD_DIR)

# Sanitized builds (cmake/project_options.cmake's WARPWATCH_SANITIZE): an optimised build
# with debug info, cpu only, the programs the tests run (the fuzz corpus replays too);
# warnings are not errors there
# (gcc's -Wmaybe-uninitialized misfires on sanitized std::function code). Every sanitizer
# report stops the process that made it (the test binary, or a warpwatchd it started) with
# exit code 99 and is written to $(SAN_BUILD)/sanitizer-reports/report.<pid>; the recipe
# fails when that folder holds any, so a report from a child whose exit status a test does
# not read still fails the run. WARPWATCH_TEST_TIME_SCALE stretches the tests' bounded
# waits (tests/support/test_support.hpp) by the sanitizers' slowdown.
SAN_TARGETS := warpwatch_tests warpwatchd warpwatch fuzz_replays
SAN_CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPWATCH_CUDA=OFF -DWARPWATCH_WERROR=OFF \
  -DCMAKE_CXX_COMPILER=g++ $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
SAN_COMMON_OPTIONS = halt_on_error=1:exitcode=99:print_stacktrace=1:log_path=$(CURDIR)/$(SAN_BUILD)/sanitizer-reports/report
# The `install`-labelled tests (systemd_unit, debian_package) are left out: they check the
# installed files and the package's metadata, not code paths, and the sanitized programs
# would make dpkg-shlibdeps list libasan/libtsan as dependencies of the package.
ASAN_CTEST_ARGS := -LE 'gpu|install'
# The multi-threaded paths, by gtest suite: tests/daemon/service (pipeline, reloads, sinks,
# metrics server, the warpwatchd process), the alerting sinks and publisher, and
# tests/stream (ingest hub, ZeroMQ, MQTT, Influx and replay sources, and the decoders
# they run).
TSAN_SERVICE_SUITES := ArrivalLog|CurveAuth|DaemonE2e|DaemonReload|DaemonSinks|EventStore|\
  EventStoreState|InfluxIngest|RecentHistory|\
  LibraryLimit|Logging|Metrics|PipelineBackend|PipelineLimits|PipelineMqtt|ServiceNotifier|\
  Warpwatchd[A-Za-z]*
TSAN_ALERTING_SUITES := AlertmanagerSink|WebhookSink|SinkPayload|Publisher|EventJson
TSAN_STREAM_SUITES := IngestHub|Sources|ZmqSourceTest|Mqtt(Auth|SourceOptions|SourceTest|Tls)|\
  InfluxClient|InfluxSource[A-Za-z]*|InfluxTcp|InfluxUdp|InfluxLineDecoder|InfluxMapping|\
  LineFramer|Frame|JsonPayload|LineProtocol|RateLimit[A-Za-z]*|Registry|RegistryRedeclare|Replay|\
  StreamId|TopicTemplate|Validator|ZapHandler|ZmqDelivery|CurveKeys
TSAN_SUITES = ^($(TSAN_SERVICE_SUITES)|$(TSAN_ALERTING_SUITES)|$(TSAN_STREAM_SUITES))\.
TSAN_CTEST_ARGS = -LE 'gpu|install' -R '$(subst $(space),,$(TSAN_SUITES))'
space := $(subst ,, )
SAN_TIME_SCALE ?= 4

test-asan: SAN_BUILD := build-asan
test-asan: SAN_KIND := address
test-asan: SAN_CTEST_ARGS = $(ASAN_CTEST_ARGS)
test-asan: SAN_ENV = ASAN_OPTIONS=$(SAN_COMMON_OPTIONS):detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1 \
  UBSAN_OPTIONS=$(SAN_COMMON_OPTIONS)
test-tsan: SAN_BUILD := build-tsan
test-tsan: SAN_KIND := thread
test-tsan: SAN_CTEST_ARGS = $(TSAN_CTEST_ARGS)
test-tsan: SAN_ENV = TSAN_OPTIONS=$(SAN_COMMON_OPTIONS):second_deadlock_stack=1:suppressions=$(CURDIR)/tests/sanitizers/tsan.supp
test-asan test-tsan: deps
	cmake -S . -B $(SAN_BUILD) $(SAN_CMAKE_FLAGS) -DWARPWATCH_SANITIZE=$(SAN_KIND)
	cmake --build $(SAN_BUILD) -j $(JOBS) --target $(SAN_TARGETS)
	rm -rf $(SAN_BUILD)/sanitizer-reports && mkdir -p $(SAN_BUILD)/sanitizer-reports
	env $(SAN_ENV) WARPWATCH_TEST_TIME_SCALE=$(SAN_TIME_SCALE) \
	  ctest --test-dir $(SAN_BUILD) --output-on-failure -j $(JOBS) $(SAN_CTEST_ARGS); status=$$?; \
	if [ -n "$$(ls -A $(SAN_BUILD)/sanitizer-reports)" ]; then \
	  echo "$@: sanitizer reports in $(SAN_BUILD)/sanitizer-reports:"; \
	  head -n 60 $(SAN_BUILD)/sanitizer-reports/*; exit 1; \
	fi; exit $$status
