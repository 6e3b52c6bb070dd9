# ctest build.tests_off (cmake -P): a configure with -DZARR_BUILD_TESTS=OFF, as the README's
# install commands make, defines only what is installed -- no test program, no sanitizer
# copy, no Python environment, no test server -- and registers no test.
#
#   cmake -DSOURCE_DIR=<libzarr> -DWORK_DIR=<empty dir> -DGENERATOR=<generator>
#         -DC_COMPILER=... -DCXX_COMPILER=... [-DFortran_COMPILER=...]
#         -DALLOWED=<target,target,...> -P ZarrTestsOffCheck.cmake
#
# ALLOWED: the targets such a build may define (the libraries, the tool, the example kept
# out of `all`, the doxygen target). Only configuring: nothing is built.

cmake_minimum_required(VERSION 3.16) # IN_LIST, and the policies of the project

foreach(var IN ITEMS SOURCE_DIR WORK_DIR GENERATOR ALLOWED)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ZarrTestsOffCheck.cmake: ${var} is required")
  endif()
endforeach()

string(REPLACE "," ";" ALLOWED "${ALLOWED}")
file(REMOVE_RECURSE "${WORK_DIR}")
set(args -S "${SOURCE_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}" -DZARR_BUILD_TESTS=OFF)
foreach(lang IN ITEMS C CXX Fortran)
  if(${lang}_COMPILER)
    list(APPEND args "-DCMAKE_${lang}_COMPILER=${${lang}_COMPILER}")
  endif()
endforeach()
execute_process(COMMAND "${CMAKE_COMMAND}" ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring with -DZARR_BUILD_TESTS=OFF failed:\n${out}")
endif()

set(problems "")

# The targets: each generator lists the directories of its targets here (<name>.dir).
file(STRINGS "${WORK_DIR}/CMakeFiles/TargetDirectories.txt" dirs)
set(targets "")
foreach(dir IN LISTS dirs)
  get_filename_component(name "${dir}" NAME)
  string(REGEX REPLACE "\\.dir$" "" name "${name}")
  list(APPEND targets "${name}")
endforeach()
# Utility targets every build tree has (CMake's own, install and packaging helpers).
# (install/local and install/strip have the directories local.dir and strip.dir.)
set(builtin edit_cache rebuild_cache install local strip list_install_components test
            package package_source)
set(unexpected "")
foreach(t IN LISTS targets)
  if(NOT t IN_LIST ALLOWED AND NOT t IN_LIST builtin)
    list(APPEND unexpected "${t}")
  endif()
endforeach()
list(REMOVE_DUPLICATES unexpected)
if(unexpected)
  string(APPEND problems "  targets that only the tests need: ${unexpected}\n")
endif()
if(NOT "zarr_cargo" IN_LIST targets OR NOT "zarr_tool" IN_LIST targets)
  string(APPEND problems "  the library (zarr_cargo) or the tool (zarr_tool) is missing: ${targets}\n")
endif()

# No test registered, no virtual environment, no test servers.
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK_DIR}" -N
  RESULT_VARIABLE rc OUTPUT_VARIABLE ctest_out ERROR_VARIABLE ctest_out)
if(NOT ctest_out MATCHES "Total Tests: 0")
  string(APPEND problems "  ctest -N lists tests:\n${ctest_out}\n")
endif()
foreach(path IN ITEMS interop-venv test-servers test-tools interop ctests)
  if(EXISTS "${WORK_DIR}/${path}")
    string(APPEND problems "  ${WORK_DIR}/${path} exists\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "-DZARR_BUILD_TESTS=OFF builds more than the installed files:\n${problems}")
endif()
list(REMOVE_DUPLICATES targets)
list(REMOVE_ITEM targets ${builtin})
message(STATUS "-DZARR_BUILD_TESTS=OFF: the targets ${targets}; no tests")
