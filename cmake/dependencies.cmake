# The libraries the build finds once, here, so that every folder's targets see them
# (imported targets are visible in the directory that finds them and below). All come
# from Debian packages: the Makefile's `deps` target installs them.
find_package(Threads REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(hwy REQUIRED)
find_package(Boost 1.74 REQUIRED)          # Asio (cpu backend's thread pool), Beast (/metrics, sinks)
find_package(OpenSSL REQUIRED)             # libcrypto: the webhook sink's HMAC-SHA256, pattern fingerprints
find_package(ZLIB REQUIRED)                # crc32: checkpoints
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(spdlog CONFIG REQUIRED)       # Debian's is built against the system fmt
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(libsystemd REQUIRED IMPORTED_TARGET libsystemd)  # sd_notify
pkg_check_modules(fftw3 REQUIRED IMPORTED_TARGET fftw3)  # ed's FFT filter (double precision)
pkg_check_modules(libmosquitto REQUIRED IMPORTED_TARGET libmosquitto)  # the MQTT source
pkg_check_modules(rdkafka REQUIRED IMPORTED_TARGET rdkafka)  # the Kafka source and sink
# cppzmq-dev ships a CMake package (target cppzmq, header-only, carrying libzmq); the
# pkg-config route covers a cppzmq without it (e.g. a hand-installed header).
find_package(cppzmq QUIET)
if(NOT TARGET cppzmq)
  pkg_check_modules(libzmq REQUIRED IMPORTED_TARGET libzmq)
  add_library(cppzmq INTERFACE IMPORTED)
  target_link_libraries(cppzmq INTERFACE PkgConfig::libzmq)
endif()
if(WARPWATCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
