# `make package` (cpack): the Debian package warpwatch_<version>_<arch>.deb of what
# `cmake --install` puts under /usr and /etc: the executables, the unit with sysusers.d and
# tmpfiles.d (systemd/), the configuration in /etc/warpwatch (conffiles), README.md and
# copyright, and man pages (help2man, written when packaging). The service is left
# disabled. CI builds the package from its CPU-only build; a CUDA build packages the same
# way (the CUDA runtime is linked statically, the driver is loaded at run time).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME warpwatch)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "warpwatch maintainers")
set(CPACK_PACKAGE_CONTACT
    "warpwatch maintainers <maintainers@users.noreply.a-seed-2fda4ee0.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "elastic pattern matching on live sensor streams (daemon and command-line tool)")
set(CPACK_PACKAGE_DESCRIPTION
    "warpwatchd ingests sensor streams over ZeroMQ, MQTT, Kafka and InfluxDB line
protocol (or replays files), matches them against pattern libraries with
subsequence DTW, discrete Frechet, TWED, soft-DTW and other elastic measures
on NVIDIA GPUs or the CPU, and publishes match events (ZeroMQ, an events file,
Alertmanager, webhooks, Kafka). warpwatch is its command-line tool: search,
distance, bench, load, check-config, replay, tail, keygen, backends.
The package holds the systemd unit (warpwatch.service, left disabled), a
configuration in /etc/warpwatch and the documentation in
/usr/share/doc/warpwatch/docs.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)            # warpwatch_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)              # dpkg-shlibdeps: the libraries' packages
# systemd-sysusers and systemd-tmpfiles (postinst), /bin/kill (the unit's ExecReload=).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd, procps")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

# The maintainer scripts create the user and the directories (systemd-sysusers,
# systemd-tmpfiles) and stop the service on removal.
set(debian_dir ${CMAKE_CURRENT_LIST_DIR}/debian)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${debian_dir}/postinst ${debian_dir}/prerm
    ${debian_dir}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
install(FILES ${debian_dir}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Once staged: conffiles (every file under /etc) and the man pages (help2man from --help).
set(CPACK_PRE_BUILD_SCRIPTS ${debian_dir}/finish_package.cmake)
set(CPACK_WARPWATCH_MANDIR ${CMAKE_INSTALL_MANDIR})

include(CPack)
