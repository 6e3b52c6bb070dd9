# The checks behind the `install` ctest tests (cmake/ZarrInstallTests.cmake), run as
#   cmake -DACTION=<action> -D... -P cmake/ZarrInstallCheck.cmake
#
# ACTION=symbols   LIB NM: the shared library exports only zarr_* symbols (nm -D --defined-only)
# ACTION=stage     BUILD_DIR PREFIX: a fresh `cmake --install BUILD_DIR --prefix PREFIX`
# ACTION=layout    PREFIX LIBDIR INCLUDEDIR VERSION READELF NM SOURCE_ROOT BUILD_ROOT FORTRAN
#                  PKG_CONFIG DEBUG_INFO: files, links, SONAME, exports, no debug information
#                  (unless DEBUG_INFO), zarr.pc's prefix is PREFIX and its libdir has no
#                  "..", and no absolute path of the prefix, the source or the build tree in
#                  the .cmake files
# ACTION=strip     BUILD_DIR PREFIX STAGE LIBDIR VERSION READELF NM: `cmake --install --strip`
#                  into PREFIX: libzarr.so has no symbol table, is smaller than STAGE's, and
#                  still exports the zarr_* functions
# ACTION=consumer  PREFIX MODES ...: build tests/consumer against PREFIX and run it, for each
#                  mode (comma-separated) of cmake-shared, cmake-static, cmake-cpp,
#                  cmake-fortran, pkgconfig-shared, pkgconfig-static, pkgconfig-fortran
# ACTION=relocate  BUILD_DIR WORK_DIR ...: install into WORK_DIR/installed, move it to
#                  WORK_DIR/moved, check no .cmake file names the old place, then run the
#                  consumer modes against the moved prefix (pkg-config with --define-prefix)
#
# Consumer arguments: SOURCE_DIR (tests/consumer), WORK_DIR, LIBDIR, VERSION, C_COMPILER,
# CXX_COMPILER, Fortran_COMPILER, GENERATOR, MAKE_PROGRAM, PKG_CONFIG, READELF, DEFINE_PREFIX
# (pass --define-prefix to pkg-config: the prefix is where the .pc file is).

cmake_minimum_required(VERSION 3.16)

function(zarr_fail)
  string(JOIN "" text ${ARGN})
  message(FATAL_ERROR "${text}")
endfunction()

function(zarr_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " command ${ARGN})
    zarr_fail("command failed (${rc}): ${command}\n${out}\n${err}")
  endif()
  set(zarr_run_output "${out}" PARENT_SCOPE)
endfunction()

function(zarr_check_symbols lib)
  zarr_run("${NM}" -D --defined-only "${lib}")
  string(REPLACE "\n" ";" lines "${zarr_run_output}")
  set(bad "")
  set(good 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ ]+)$")
      set(name "${CMAKE_MATCH_1}")
      if(name MATCHES "^zarr_")
        math(EXPR good "${good} + 1")
      else()
        list(APPEND bad "${name}")
      endif()
    endif()
  endforeach()
  if(bad)
    string(REPLACE ";" "\n  " bad "${bad}")
    zarr_fail("${lib} exports symbols outside zarr_*:\n  ${bad}")
  endif()
  if(good EQUAL 0)
    zarr_fail("${lib} exports no zarr_* symbol at all:\n${zarr_run_output}")
  endif()
  message(STATUS "${lib}: ${good} exported symbols, all zarr_*")
endfunction()

# The .cmake files of an installed prefix must not name an absolute build or install path.
# (zarr.pc names its install prefix on purpose; see cmake/ZarrInstall.cmake.)
function(zarr_check_no_paths prefix)
  file(GLOB_RECURSE texts "${prefix}/*.cmake")
  if(NOT texts)
    zarr_fail("no .cmake files under ${prefix}")
  endif()
  foreach(file IN LISTS texts)
    file(READ "${file}" text)
    foreach(path IN LISTS ARGN)
      string(FIND "${text}" "${path}" at)
      if(NOT at EQUAL -1)
        zarr_fail("${file} names the absolute path ${path}: the package would not be "
                  "relocatable")
      endif()
    endforeach()
  endforeach()
endfunction()

function(zarr_expect_link file target)
  if(NOT IS_SYMLINK "${file}")
    zarr_fail("${file} is not a symbolic link")
  endif()
  file(READ_SYMLINK "${file}" actual)
  if(NOT actual STREQUAL target)
    zarr_fail("${file} -> ${actual}, expected -> ${target}")
  endif()
endfunction()

# Whether an ELF file has debug sections (.debug_*) and a symbol table (.symtab). Only
# section names that start so count ("  [ 6] .debug_info ..."): function sections of a
# Rust module named debug_* (mio's debug_details) hold ".debug_" inside their names.
function(zarr_elf_sections file)
  zarr_run("${READELF}" -S --wide "${file}")
  set(debug OFF)
  set(symtab OFF)
  if(zarr_run_output MATCHES "\\] +\\.debug_")
    set(debug ON)
  endif()
  if(zarr_run_output MATCHES "\\] +\\.symtab")
    set(symtab ON)
  endif()
  set(zarr_has_debug ${debug} PARENT_SCOPE)
  set(zarr_has_symtab ${symtab} PARENT_SCOPE)
endfunction()

function(zarr_check_layout)
  string(REGEX MATCH "^[0-9]+" major "${VERSION}")
  set(lib "${PREFIX}/${LIBDIR}")
  set(files "${PREFIX}/${INCLUDEDIR}/zarr.h" "${PREFIX}/${INCLUDEDIR}/zarr.hpp"
            "${PREFIX}/bin/zarr" "${lib}/libzarr.so.${VERSION}"
            "${lib}/libzarr.a" "${lib}/pkgconfig/zarr.pc"
            "${lib}/cmake/zarr/zarrConfig.cmake"
            "${lib}/cmake/zarr/zarrConfigVersion.cmake")
  if(FORTRAN)
    list(APPEND files "${PREFIX}/${INCLUDEDIR}/zarr.mod" "${lib}/libzarr_fortran.a"
                      "${lib}/pkgconfig/zarr-fortran.pc" "${lib}/cmake/zarr/zarrFortran.cmake"
                      "${PREFIX}/share/zarr/fortran/zarr.f90")
  endif()
  foreach(file IN LISTS files)
    if(NOT EXISTS "${file}" OR IS_SYMLINK "${file}" OR IS_DIRECTORY "${file}")
      zarr_fail("${file} is missing or not a regular file")
    endif()
  endforeach()
  zarr_expect_link("${lib}/libzarr.so.${major}" "libzarr.so.${VERSION}")
  zarr_expect_link("${lib}/libzarr.so" "libzarr.so.${major}")

  zarr_run("${READELF}" -d "${lib}/libzarr.so.${VERSION}")
  if(NOT zarr_run_output MATCHES "\\(SONAME\\)[^\n]*\\[libzarr\\.so\\.${major}\\]")
    zarr_fail("SONAME of ${lib}/libzarr.so.${VERSION} is not libzarr.so.${major}:\n"
              "${zarr_run_output}")
  endif()
  zarr_check_symbols("${lib}/libzarr.so.${VERSION}")

  # Installed without debug information (see the bound below).
  foreach(file IN ITEMS "${lib}/libzarr.so.${VERSION}" "${lib}/libzarr.a")
    zarr_elf_sections("${file}")
    file(SIZE "${file}" size)
    math(EXPR mib "${size} / 1048576")
    if(DEBUG_INFO)
      message(STATUS "${file}: ${mib} MiB, debug information kept (ZARR_INSTALL_DEBUG_INFO)")
    elseif(zarr_has_debug)
      zarr_fail("${file} (${mib} MiB) still has debug sections")
    else()
      message(STATUS "${file}: ${mib} MiB, no debug information")
    endif()
  endforeach()
  # 17.5 MiB since the Azure client (object_store, tokio, reqwest, aws-lc), 33.7 MiB since
  # Icechunk and the Parquet reader (2026-11-28); with its line tables it would be 69 MiB,
  # which this bound catches.
  file(SIZE "${lib}/libzarr.so.${VERSION}" size)
  if(NOT DEBUG_INFO AND size GREATER 50331648)
    zarr_fail("${lib}/libzarr.so.${VERSION} is ${size} bytes: more than 48 MiB")
  endif()

  file(READ "${lib}/pkgconfig/zarr.pc" pc)
  foreach(line IN ITEMS "prefix=${PREFIX}\n" "libdir=\${prefix}/${LIBDIR}\n" "Libs: -L\${libdir} -lzarr\n"
                        "Libs.private: -l" "Version: ${VERSION}\n" "Description: Zarr (v3 and v2)")
    string(FIND "${pc}" "${line}" at)
    if(at EQUAL -1)
      zarr_fail("zarr.pc lacks '${line}':\n${pc}")
    endif()
  endforeach()
  set(ENV{PKG_CONFIG_PATH} "${lib}/pkgconfig")
  zarr_run("${PKG_CONFIG}" --variable=libdir zarr)
  string(STRIP "${zarr_run_output}" libdir)
  if(NOT libdir STREQUAL "${lib}")
    zarr_fail("pkg-config --variable=libdir zarr gave '${libdir}', expected the normalised '${lib}'")
  endif()
  zarr_check_no_paths("${PREFIX}" "${PREFIX}" "${SOURCE_ROOT}" "${BUILD_ROOT}")
  message(STATUS "layout of ${PREFIX} is complete")
endfunction()

function(zarr_check_strip)
  set(so "${LIBDIR}/libzarr.so.${VERSION}")
  file(REMOVE_RECURSE "${PREFIX}")
  zarr_run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" --strip)
  zarr_elf_sections("${PREFIX}/${so}")
  if(zarr_has_debug OR zarr_has_symtab)
    zarr_fail("cmake --install --strip left ${PREFIX}/${so} with debug sections or a symbol table")
  endif()
  zarr_elf_sections("${PREFIX}/bin/zarr")
  if(zarr_has_symtab)
    zarr_fail("cmake --install --strip left ${PREFIX}/bin/zarr with a symbol table")
  endif()
  file(SIZE "${PREFIX}/${so}" stripped)
  file(SIZE "${STAGE}/${so}" staged)
  if(NOT stripped LESS staged)
    zarr_fail("--strip: ${stripped} bytes, not less than the ${staged} of a plain install")
  endif()
  zarr_check_symbols("${PREFIX}/${so}")
  message(STATUS "--strip: libzarr.so ${stripped} bytes (plain install: ${staged})")
endfunction()

function(zarr_check_consumer prefix mode)
  set(dir "${WORK_DIR}/${mode}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" major_minor "${VERSION}")
  string(REGEX MATCH "^[0-9]+" major "${VERSION}")
  if(mode MATCHES "^cmake-(shared|static|cpp|fortran)$")
    set(kind "${CMAKE_MATCH_1}")
    if(kind STREQUAL "shared")
      set(kind "c")
    elseif(kind STREQUAL "static")
      set(kind "c-static")
    endif()
    set(generator_args -G "${GENERATOR}")
    if(MAKE_PROGRAM)
      list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
    endif()
    zarr_run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${dir}/build" ${generator_args}
      "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
      "-DCMAKE_Fortran_COMPILER=${Fortran_COMPILER}" "-DCMAKE_BUILD_TYPE=Release"
      "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
      "-DZARR_CONSUMER_KIND=${kind}" "-DZARR_CONSUMER_VERSION=${major_minor}")
    set(configure_output "${zarr_run_output}")
    string(FIND "${configure_output}" "from ${prefix}/" at)
    if(at EQUAL -1)
      zarr_fail("find_package(zarr) did not use ${prefix}:\n${configure_output}")
    endif()
    zarr_run("${CMAKE_COMMAND}" --build "${dir}/build")
    set(exe "${dir}/build/consumer")
  elseif(mode MATCHES "^pkgconfig-(shared|static|fortran)$")
    set(static "${CMAKE_MATCH_1}")
    if(NOT PKG_CONFIG)
      zarr_fail("pkg-config not found: install it (scripts/setup.sh does) and reconfigure")
    endif()
    set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
    set(pc "${PKG_CONFIG}")
    if(DEFINE_PREFIX)
      list(APPEND pc --define-prefix)
    endif()
    set(PKG_CONFIG ${pc})
    zarr_run(${PKG_CONFIG} --modversion zarr)
    string(STRIP "${zarr_run_output}" found_version)
    if(NOT found_version STREQUAL VERSION)
      zarr_fail("pkg-config --modversion zarr gave '${found_version}', expected ${VERSION}")
    endif()
    set(package zarr)
    if(static STREQUAL "fortran")
      set(package zarr-fortran)
    endif()
    zarr_run(${PKG_CONFIG} --cflags ${package})
    separate_arguments(cflags UNIX_COMMAND "${zarr_run_output}")
    if(static STREQUAL "static")
      # --static adds Libs.private; -l:libzarr.a picks the archive where -lzarr would pick
      # the shared library that lies beside it.
      zarr_run(${PKG_CONFIG} --static --libs zarr)
      separate_arguments(libs UNIX_COMMAND "${zarr_run_output}")
      list(TRANSFORM libs REPLACE "^-lzarr$" "-l:libzarr.a")
    else()
      zarr_run(${PKG_CONFIG} --libs ${package})
      separate_arguments(libs UNIX_COMMAND "${zarr_run_output}")
      zarr_run(${PKG_CONFIG} --variable=libdir zarr)
      string(STRIP "${zarr_run_output}" libdir)
      get_filename_component(normalised "${libdir}" ABSOLUTE)
      if(NOT libdir STREQUAL normalised OR NOT libdir STREQUAL "${prefix}/${LIBDIR}")
        zarr_fail("pkg-config gave libdir '${libdir}', expected '${prefix}/${LIBDIR}'")
      endif()
      list(APPEND libs "-Wl,-rpath,${libdir}")
    endif()
    set(exe "${dir}/consumer")
    if(static STREQUAL "fortran")
      # gfortran writes the module's .mod files of the program into the current directory
      zarr_run("${CMAKE_COMMAND}" -E chdir "${dir}" "${Fortran_COMPILER}" ${cflags}
        "${SOURCE_DIR}/consumer.f90" -o "${exe}" ${libs})
    else()
      zarr_run("${C_COMPILER}" -std=c99 -Wall -Wextra -Werror ${cflags}
        "${SOURCE_DIR}/consumer.c" -o "${exe}" ${libs})
    endif()
  else()
    zarr_fail("unknown consumer mode '${mode}'")
  endif()

  # Dynamic section: the shared consumer needs libzarr.so.MAJOR and finds it through its
  # run path inside the prefix; the static one does not need libzarr at all.
  zarr_run("${READELF}" -d "${exe}")
  set(dynamic "${zarr_run_output}")
  if(NOT mode MATCHES "static$")
    if(NOT dynamic MATCHES "\\(NEEDED\\)[^\n]*\\[libzarr\\.so\\.${major}\\]")
      zarr_fail("${exe} does not need libzarr.so.${major}:\n${dynamic}")
    endif()
    if(NOT dynamic MATCHES "\\((RUNPATH|RPATH)\\)[^\n]*\\[([^\n]*)\\]")
      zarr_fail("${exe} has no run path:\n${dynamic}")
    endif()
    string(FIND "${CMAKE_MATCH_2}" "${prefix}/" at)
    if(at EQUAL -1)
      zarr_fail("run path of ${exe} (${CMAKE_MATCH_2}) is not inside ${prefix}")
    endif()
  elseif(dynamic MATCHES "\\(NEEDED\\)[^\n]*\\[libzarr")
    zarr_fail("statically linked ${exe} still needs a shared libzarr:\n${dynamic}")
  endif()

  # Run it with no library path help: the run path (or the static link) must do.
  unset(ENV{LD_LIBRARY_PATH})
  zarr_run("${exe}")
  string(FIND "${zarr_run_output}" "libzarr ${VERSION}:" at)
  if(at EQUAL -1)
    zarr_fail("${exe} printed unexpected output:\n${zarr_run_output}")
  endif()
  message(STATUS "${mode}: ${zarr_run_output}")
endfunction()

function(zarr_stage build_dir prefix)
  file(REMOVE_RECURSE "${prefix}")
  zarr_run("${CMAKE_COMMAND}" --install "${build_dir}" --prefix "${prefix}")
  message(STATUS "installed ${build_dir} into ${prefix}")
endfunction()

string(REPLACE "," ";" MODES "${MODES}")
if(ACTION STREQUAL "symbols")
  zarr_check_symbols("${LIB}")
elseif(ACTION STREQUAL "stage")
  zarr_stage("${BUILD_DIR}" "${PREFIX}")
elseif(ACTION STREQUAL "layout")
  zarr_check_layout()
elseif(ACTION STREQUAL "strip")
  zarr_check_strip()
elseif(ACTION STREQUAL "consumer")
  foreach(mode IN LISTS MODES)
    zarr_check_consumer("${PREFIX}" "${mode}")
  endforeach()
elseif(ACTION STREQUAL "relocate")
  file(REMOVE_RECURSE "${WORK_DIR}")
  zarr_stage("${BUILD_DIR}" "${WORK_DIR}/installed")
  file(RENAME "${WORK_DIR}/installed" "${WORK_DIR}/moved")
  zarr_check_no_paths("${WORK_DIR}/moved" "${WORK_DIR}/installed" "${BUILD_DIR}")
  foreach(mode IN LISTS MODES)
    zarr_check_consumer("${WORK_DIR}/moved" "${mode}")
  endforeach()
else()
  zarr_fail("ACTION must be symbols, stage, layout, strip, consumer or relocate (got '${ACTION}')")
endif()
