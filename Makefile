# The README's commands. CMake does the building; this file only strings steps together.
#   make deps   install the Debian packages the build needs (apt-get; sudo when not root)
#   make build  configure and build in $(BUILD_DIR)
#   make test   deps + build + ctest
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
# Variables: BUILD_DIR, BUILD_TYPE, WARPWATCH_CUDA (AUTO|ON|OFF), CUDA_ARCHITECTURES,
# WERROR (ON in CI), JOBS.
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
# (tests/stream/test_influx_client.cpp; Debian does not package Telegraf).
DEB_PACKAGES := cmake g++ make pkg-config \
  libgtest-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev \
  libspdlog-dev libfmt-dev libhwy-dev libzmq3-dev cppzmq-dev libboost-dev \
  libsystemd-dev prometheus-cpp-dev libfftw3-dev libssl-dev clang-format \
  prometheus-alertmanager systemd procps dpkg-dev file help2man \
  libmosquitto-dev mosquitto openssl python3-influxdb

CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DWARPWATCH_CUDA=$(WARPWATCH_CUDA) \
  -DWARPWATCH_WERROR=$(WERROR)
ifneq ($(strip $(CUDA_ARCHITECTURES)),)
CMAKE_FLAGS += -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHITECTURES)
endif

# `warpwatch bench e2e --plot` draws with gnuplot: installed by `make bench-deps` only, so
# that the build and the tests (CI) stay lean.
BENCH_DEB_PACKAGES := gnuplot-nox

.PHONY: deps bench-deps configure build test clean demo format format-check package fuzz fuzz-deps soak

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
demo: build
	@echo "demo: warpwatchd finds the bump pattern planted at samples 500, 1400 and 2300 of sensor-1"
	@$(BUILD_DIR)/bin/warpwatch tail --endpoint $(DEMO_ENDPOINT) --idle-exit-ms 3000 & tail_pid=$$!; \
	sleep 0.5; \
	$(BUILD_DIR)/bin/warpwatchd --config config/examples/demo.yaml --exit-when-replayed; status=$$?; \
	wait $$tail_pid; exit $$status

# The soak (README: "The soak"): the real warpwatchd, a Mosquitto broker and `warpwatch load`
# for SOAK_SECONDS with random faults, then it reconciles /metrics and the events file and
# exits non-zero when a line does not add up. Not in CI (it takes minutes).
SOAK_SECONDS ?= 600
soak: build
	python3 tests/soak/soak.py --seconds $(SOAK_SECONDS) --build-dir $(BUILD_DIR)
