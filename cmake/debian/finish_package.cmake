# cpack runs this (CPACK_PRE_BUILD_SCRIPTS) once the installation is staged, before the
# package is built: it lists every file under /etc as a conffile, and writes the man pages
# from the staged executables' --help with help2man (`make deps` installs it).
set(root "${CPACK_TEMPORARY_DIRECTORY}")
set(prefix "${root}${CPACK_PACKAGING_INSTALL_PREFIX}")

# conffiles: dpkg keeps the administrator's edits of these on upgrade.
file(GLOB_RECURSE etc_files LIST_DIRECTORIES false RELATIVE "${root}" "${root}/etc/*")
list(SORT etc_files)
list(TRANSFORM etc_files PREPEND "/")
list(JOIN etc_files "\n" conffiles)
file(WRITE "${CPACK_TOPLEVEL_DIRECTORY}/conffiles" "${conffiles}\n")
list(APPEND CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CPACK_TOPLEVEL_DIRECTORY}/conffiles")

find_program(help2man help2man)
if(NOT help2man)
  message(FATAL_ERROR "help2man not found: it writes the package's man pages (`make deps`)")
endif()
set(man1 "${prefix}/${CPACK_WARPWATCH_MANDIR}/man1")
file(MAKE_DIRECTORY "${man1}")
set(work "${CPACK_TOPLEVEL_DIRECTORY}/man")
file(MAKE_DIRECTORY "${work}")

# Text as roff shows it unchanged: no escapes, no line read as a request.
function(as_roff_text text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The executables run by name from the staged bin/, so that their usage lines say
# `warpwatch`, not the staging path.
set(run_staged ${CMAKE_COMMAND} -E env "PATH=${prefix}/bin:$ENV{PATH}")
function(run_help exe out)
  execute_process(COMMAND ${run_staged} ${exe} ${ARGN} --help OUTPUT_VARIABLE text
                  COMMAND_ERROR_IS_FATAL ANY)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# warpwatch(1): the verbs' own --help, each under its name.
run_help(warpwatch top)
string(REGEX MATCH "Subcommands:\n.*" verbs_text "${top}")
string(REGEX MATCHALL "\n  [a-z-]+ " verbs "${verbs_text}")
set(commands "[COMMANDS]\nEach verb's options, as `warpwatch VERB --help` prints them.\n")
foreach(verb IN LISTS verbs)
  string(STRIP "${verb}" verb)
  run_help(warpwatch text ${verb})
  as_roff_text("${text}" text)
  string(APPEND commands ".SS \"warpwatch ${verb}\"\n.nf\n${text}.fi\n")
endforeach()
file(WRITE "${work}/warpwatch.h2m" "${commands}
[SEE ALSO]
.BR warpwatchd (1);
/usr/share/doc/warpwatch/docs/ (cli.md, configuration.md, ingest.md, sinks.md, spec.md).
")
file(WRITE "${work}/warpwatchd.h2m" "[FILES]
.TP
/etc/warpwatch/warpwatch.yaml
the configuration warpwatch.service starts with (`warpwatch check-config` checks it)
.TP
/var/lib/warpwatch
the service's state directory (the events file)
[SIGNALS]
SIGHUP re-reads the configuration; SIGTERM and SIGINT drain and exit.
[SEE ALSO]
.BR warpwatch (1),
.BR systemd-analyze (1);
systemctl status warpwatch;
/usr/share/doc/warpwatch/docs/ (operations.md: the daemon, reload, state, metrics, systemd).
")

foreach(exe_name IN ITEMS warpwatch warpwatchd)
  if(exe_name STREQUAL "warpwatch")
    set(name "elastic pattern matching on time series: search, distance, bench, check-config")
  else()
    set(name "streaming elastic pattern matching daemon")
  endif()
  execute_process(
    COMMAND ${run_staged} "${help2man}" --no-info "--name=${name}"
            "--include=${work}/${exe_name}.h2m" "--output=${work}/${exe_name}.1" ${exe_name}
    COMMAND_ERROR_IS_FATAL ANY)
  # gzip -n: no name or time stamp in the file, the same bytes for the same page.
  execute_process(COMMAND gzip -9nf "${work}/${exe_name}.1" COMMAND_ERROR_IS_FATAL ANY)
  file(COPY "${work}/${exe_name}.1.gz" DESTINATION "${man1}")
endforeach()
