# The checks behind the install.*mpi* ctest tests (mpi/CMakeLists.txt), run as
#   cmake -DACTION=<action> -D... -P mpi/tests/install_check.cmake
#
# ACTION=layout    PREFIX LIBDIR INCLUDEDIR VERSION READELF NM PKG_CONFIG: zarr_mpi.h,
#                  libzarr_mpi.so.X.Y.Z (SONAME libzarr_mpi.so.X, needs libzarr.so.X, run
#                  path $ORIGIN, exports only zarr_comm_create_mpi and _f), its links,
#                  libzarr_mpi.a, zarr-mpi.pc (pkg-config --libs gives -lzarr_mpi, -lzarr and
#                  the run path, --cflags the include directory), zarrMpi.cmake
# ACTION=consumer  PREFIX WORK_DIR MODES ...: build tests/consumer/consumer_mpi.c against
#                  PREFIX and run it with `mpirun -np 4`, for each mode of
#                  pkgconfig  exactly `MPICC consumer_mpi.c $(pkg-config --cflags --libs
#                             zarr-mpi)`, run without LD_LIBRARY_PATH (zarr-mpi.pc carries
#                             the run path)
#                  cmake      find_package(zarr CONFIG REQUIRED COMPONENTS mpi), zarr::mpi
# ACTION=relocate  BUILD_DIR WORK_DIR MODES ...: install into WORK_DIR/installed, move it to
#                  WORK_DIR/moved, then the consumer modes against the moved prefix
#                  (pkg-config with --define-prefix)
#
# Consumer arguments: SOURCE_DIR, LIBDIR, VERSION, MPICC, C_COMPILER, GENERATOR,
# MAKE_PROGRAM, PKG_CONFIG, READELF, MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS (comma-
# separated), TIMEOUT (coreutils' timeout, around mpirun), DEFINE_PREFIX.

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

function(zarr_expect_link file target)
  if(NOT IS_SYMLINK "${file}")
    zarr_fail("${file} is not a symbolic link")
  endif()
  file(READ_SYMLINK "${file}" actual)
  if(NOT actual STREQUAL target)
    zarr_fail("${file} -> ${actual}, expected -> ${target}")
  endif()
endfunction()

function(zarr_check_layout)
  string(REGEX MATCH "^[0-9]+" major "${VERSION}")
  set(lib "${PREFIX}/${LIBDIR}")
  set(so "${lib}/libzarr_mpi.so.${VERSION}")
  foreach(file IN ITEMS "${PREFIX}/${INCLUDEDIR}/zarr_mpi.h" "${so}" "${lib}/libzarr_mpi.a"
                        "${lib}/pkgconfig/zarr-mpi.pc" "${lib}/cmake/zarr/zarrMpi.cmake")
    if(NOT EXISTS "${file}" OR IS_SYMLINK "${file}" OR IS_DIRECTORY "${file}")
      zarr_fail("${file} is missing or not a regular file")
    endif()
  endforeach()
  zarr_expect_link("${lib}/libzarr_mpi.so.${major}" "libzarr_mpi.so.${VERSION}")
  zarr_expect_link("${lib}/libzarr_mpi.so" "libzarr_mpi.so.${major}")

  zarr_run("${READELF}" -d "${so}")
  set(dynamic "${zarr_run_output}")
  if(NOT dynamic MATCHES "\\(SONAME\\)[^\n]*\\[libzarr_mpi\\.so\\.${major}\\]")
    zarr_fail("SONAME of ${so} is not libzarr_mpi.so.${major}:\n${dynamic}")
  endif()
  if(NOT dynamic MATCHES "\\(NEEDED\\)[^\n]*\\[libzarr\\.so\\.${major}\\]")
    zarr_fail("${so} does not need libzarr.so.${major}:\n${dynamic}")
  endif()
  if(NOT dynamic MATCHES "\\((RUNPATH|RPATH)\\)[^\n]*\\[\\$ORIGIN[]:]")
    zarr_fail("${so} has no run path $ORIGIN (to find libzarr.so.${major} beside it):\n${dynamic}")
  endif()

  # Exactly the two functions of zarr_mpi.h are exported.
  zarr_run("${NM}" -D --defined-only "${so}")
  string(REPLACE "\n" ";" lines "${zarr_run_output}")
  set(names "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ ]+)$")
      list(APPEND names "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(SORT names)
  if(NOT names STREQUAL "zarr_comm_create_mpi;zarr_comm_create_mpi_f")
    zarr_fail("${so} exports ${names}, expected zarr_comm_create_mpi and zarr_comm_create_mpi_f")
  endif()

  file(READ "${lib}/pkgconfig/zarr-mpi.pc" pc)
  foreach(line IN ITEMS "prefix=${PREFIX}\n" "libdir=\${prefix}/${LIBDIR}\n" "Requires: zarr\n"
                        "Libs: -L\${libdir} -lzarr_mpi -Wl,-rpath,\${libdir}\n"
                        "Version: ${VERSION}\n")
    string(FIND "${pc}" "${line}" at)
    if(at EQUAL -1)
      zarr_fail("zarr-mpi.pc lacks '${line}':\n${pc}")
    endif()
  endforeach()
  set(ENV{PKG_CONFIG_PATH} "${lib}/pkgconfig")
  zarr_run("${PKG_CONFIG}" --libs zarr-mpi)
  string(STRIP "${zarr_run_output}" libs)
  separate_arguments(libs UNIX_COMMAND "${libs}")
  foreach(flag IN ITEMS "-L${lib}" -lzarr_mpi -lzarr "-Wl,-rpath,${lib}")
    if(NOT flag IN_LIST libs)
      zarr_fail("pkg-config --libs zarr-mpi gave '${libs}', without ${flag}")
    endif()
  endforeach()
  zarr_run("${PKG_CONFIG}" --cflags zarr-mpi)
  string(FIND "${zarr_run_output}" "-I${PREFIX}/${INCLUDEDIR}" at)
  if(at EQUAL -1)
    zarr_fail("pkg-config --cflags zarr-mpi gave '${zarr_run_output}'")
  endif()
  message(STATUS "libzarr_mpi in ${PREFIX}: complete; pkg-config --libs zarr-mpi: ${libs}")
endfunction()

function(zarr_check_consumer prefix mode)
  set(dir "${WORK_DIR}/${mode}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  string(REGEX MATCH "^[0-9]+" major "${VERSION}")
  if(mode STREQUAL "pkgconfig")
    if(NOT PKG_CONFIG)
      zarr_fail("pkg-config not found: install it (scripts/setup.sh does) and reconfigure")
    endif()
    set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
    set(pc "${PKG_CONFIG}")
    if(DEFINE_PREFIX)
      list(APPEND pc --define-prefix)
    endif()
    # As the users of zarr-mpi.pc do: mpicc prog.c $(pkg-config --cflags --libs zarr-mpi)
    zarr_run(${pc} --cflags --libs zarr-mpi)
    separate_arguments(flags UNIX_COMMAND "${zarr_run_output}")
    zarr_run(${pc} --variable=libdir zarr-mpi)
    string(STRIP "${zarr_run_output}" libdir)
    if(NOT libdir STREQUAL "${prefix}/${LIBDIR}")
      zarr_fail("pkg-config gave libdir '${libdir}', expected '${prefix}/${LIBDIR}'")
    endif()
    set(exe "${dir}/consumer_mpi")
    zarr_run("${MPICC}" "${SOURCE_DIR}/consumer_mpi.c" ${flags} -o "${exe}")
  elseif(mode STREQUAL "cmake")
    set(generator_args -G "${GENERATOR}")
    if(MAKE_PROGRAM)
      list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
    endif()
    zarr_run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${dir}/build" ${generator_args}
      "-DCMAKE_C_COMPILER=${C_COMPILER}" -DCMAKE_BUILD_TYPE=Release
      "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
    string(FIND "${zarr_run_output}" "from ${prefix}/" at)
    if(at EQUAL -1)
      zarr_fail("find_package(zarr) did not use ${prefix}:\n${zarr_run_output}")
    endif()
    zarr_run("${CMAKE_COMMAND}" --build "${dir}/build")
    set(exe "${dir}/build/consumer_mpi")
  else()
    zarr_fail("unknown consumer mode '${mode}'")
  endif()

  # The program needs libzarr_mpi.so.X (and libzarr.so.X, which it calls too) and finds
  # them through its run path inside the prefix.
  zarr_run("${READELF}" -d "${exe}")
  foreach(needed IN ITEMS "libzarr_mpi\\.so\\.${major}" "libzarr\\.so\\.${major}")
    if(NOT zarr_run_output MATCHES "\\(NEEDED\\)[^\n]*\\[${needed}\\]")
      zarr_fail("${exe} does not need ${needed}:\n${zarr_run_output}")
    endif()
  endforeach()

  # Run it on 4 ranks, with no library path help, under a time limit.
  unset(ENV{LD_LIBRARY_PATH})
  set(run "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 4 ${MPIEXEC_FLAGS} "${exe}" "${dir}/store")
  if(TIMEOUT)
    set(run "${TIMEOUT}" -k 10 180 ${run})
  endif()
  zarr_run(${run})
  string(FIND "${zarr_run_output}" "libzarr ${VERSION} on 4 ranks: ok" at)
  if(at EQUAL -1)
    zarr_fail("${exe} printed unexpected output:\n${zarr_run_output}")
  endif()
  message(STATUS "${mode}: ${zarr_run_output}")
endfunction()

string(REPLACE "," ";" MODES "${MODES}")
string(REPLACE "," ";" MPIEXEC_FLAGS "${MPIEXEC_FLAGS}")
if(ACTION STREQUAL "layout")
  zarr_check_layout()
elseif(ACTION STREQUAL "consumer")
  foreach(mode IN LISTS MODES)
    zarr_check_consumer("${PREFIX}" "${mode}")
  endforeach()
elseif(ACTION STREQUAL "relocate")
  file(REMOVE_RECURSE "${WORK_DIR}")
  zarr_run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/installed")
  file(RENAME "${WORK_DIR}/installed" "${WORK_DIR}/moved")
  set(DEFINE_PREFIX ON)
  foreach(mode IN LISTS MODES)
    zarr_check_consumer("${WORK_DIR}/moved" "${mode}")
  endforeach()
else()
  zarr_fail("ACTION must be layout, consumer or relocate (got '${ACTION}')")
endif()
