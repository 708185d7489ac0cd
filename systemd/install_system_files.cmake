# Run by `cmake --install` (systemd/CMakeLists.txt sets the WARPWATCH_* variables): writes
# the unit and the tmpfiles.d file with the installation's paths and installs them, with
# the sysusers.d file and the packaged configuration (config/examples/warpwatch.yaml and
# the pattern file it names). CMAKE_INSTALL_PREFIX is the installation's here, DESTDIR is
# honoured by file(INSTALL).

# As GNUInstallDirs has it: a /usr installation's configuration is in /etc.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(sysconfdir /etc)
else()
  set(sysconfdir "${CMAKE_INSTALL_PREFIX}/etc")
endif()
set(WARPWATCH_BINDIR "${CMAKE_INSTALL_PREFIX}/${WARPWATCH_BINDIR_NAME}")
set(WARPWATCH_CONFDIR "${sysconfdir}/warpwatch")
set(WARPWATCH_DOCDIR "${CMAKE_INSTALL_PREFIX}/${WARPWATCH_DOCDIR_NAME}")

set(out "${WARPWATCH_WRITE_DIR}")
configure_file("${WARPWATCH_SYSTEMD_DIR}/warpwatch.service.in" "${out}/warpwatch.service" @ONLY)
configure_file("${WARPWATCH_SYSTEMD_DIR}/warpwatch.tmpfiles.in" "${out}/tmpfiles/warpwatch.conf"
               @ONLY)
configure_file("${WARPWATCH_SYSTEMD_DIR}/warpwatch.sysusers" "${out}/sysusers/warpwatch.conf"
               COPYONLY)

# systemd reads these under /usr/lib and /usr/local/lib alike.
file(INSTALL "${out}/warpwatch.service" DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
file(INSTALL "${out}/sysusers/warpwatch.conf" DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/sysusers.d")
file(INSTALL "${out}/tmpfiles/warpwatch.conf" DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/tmpfiles.d")
file(INSTALL "${WARPWATCH_EXAMPLES_DIR}/warpwatch.yaml" DESTINATION "${WARPWATCH_CONFDIR}")
file(INSTALL "${WARPWATCH_EXAMPLES_DIR}/patterns/bumps.csv"
     DESTINATION "${WARPWATCH_CONFDIR}/patterns")
