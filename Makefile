# The README's commands. CMake does the building; this file only strings steps together.
#   make deps   install the Debian packages the build needs (apt-get; sudo when not root)
#   make build  configure and build in $(BUILD_DIR)
#   make test   deps + build + ctest
#   make clean  remove $(BUILD_DIR)
# Variables: BUILD_DIR, BUILD_TYPE, WARPWATCH_CUDA (AUTO|ON|OFF), CUDA_ARCHITECTURES,
# WERROR (ON in CI), JOBS.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
WARPWATCH_CUDA ?= AUTO
WERROR ?= OFF
JOBS ?= $(shell nproc)
CUDA_ARCHITECTURES ?=

DEB_PACKAGES := cmake g++ make pkg-config \
  libgtest-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev \
  libspdlog-dev libfmt-dev libhwy-dev libzmq3-dev cppzmq-dev libboost-dev \
  libsystemd-dev prometheus-cpp-dev

CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DWARPWATCH_CUDA=$(WARPWATCH_CUDA) \
  -DWARPWATCH_WERROR=$(WERROR)
ifneq ($(strip $(CUDA_ARCHITECTURES)),)
CMAKE_FLAGS += -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHITECTURES)
endif

.PHONY: deps configure build test clean demo

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

# Reserved: the daemon issue makes this run warpwatchd on config/examples/demo.yaml.
demo:
	@echo "make demo: the daemon demo is not implemented yet" >&2; exit 2
