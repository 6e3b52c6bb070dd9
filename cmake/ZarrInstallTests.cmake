# ctest tests of the installed package (label `install`); the checks live in
# cmake/ZarrInstallCheck.cmake. Needs enable_testing() and cmake/ZarrInstall.cmake first.
#
#   install.symbols            libzarr.so exports only zarr_* symbols (nm -D --defined-only)
#   install.stage              fixture: cmake --install into <build>/install-test/stage
#   install.layout             files, symbolic links, SONAME, sizes (no debug information),
#                              zarr.pc's normalised prefix, no absolute paths in .cmake files
#   install.strip              cmake --install --strip: libzarr.so loses its symbol table too
#   install.cmake_shared       tests/consumer with find_package(zarr CONFIG), zarr::zarr
#   install.cmake_static       the same with zarr::zarr_static
#   install.cmake_cpp          consumer.cpp with zarr::cpp
#   install.cmake_fortran      consumer.f90 with zarr::fortran (when there is a Fortran compiler)
#   install.pkgconfig_shared   consumer.c compiled with pkg-config --cflags --libs zarr
#   install.pkgconfig_static   the same with pkg-config --static --libs zarr and libzarr.a
#   install.pkgconfig_fortran  consumer.f90 with pkg-config --cflags --libs zarr-fortran
#   install.relocated          install, move the prefix elsewhere, every consumer again
#                              (pkg-config with --define-prefix)

find_program(ZARR_PKG_CONFIG NAMES pkg-config pkgconf
  DOC "pkg-config, for the install.pkgconfig_* tests")
if(NOT ZARR_PKG_CONFIG)
  message(WARNING "pkg-config not found: the install.pkgconfig_* and install.relocated tests "
                  "will fail (scripts/setup.sh installs it)")
endif()
# binutils' readelf and nm (CMake finds them with the C compiler).
foreach(tool IN ITEMS READELF NM)
  string(TOLOWER "${tool}" name)
  if(CMAKE_${tool})
    set(ZARR_${tool} "${CMAKE_${tool}}")
  else()
    find_program(ZARR_${tool} ${name})
  endif()
  if(NOT ZARR_${tool})
    message(FATAL_ERROR "${name} not found (binutils): the install tests need it")
  endif()
endforeach()

# The Fortran consumers need the compiler bindings/fortran builds the module with.
include(CheckLanguage)
check_language(Fortran)
set(ZARR_CONSUMER_MODES cmake-shared cmake-static cmake-cpp pkgconfig-shared pkgconfig-static)
if(CMAKE_Fortran_COMPILER)
  list(APPEND ZARR_CONSUMER_MODES cmake-fortran pkgconfig-fortran)
  set(ZARR_INSTALL_FORTRAN ON)
else()
  set(ZARR_INSTALL_FORTRAN OFF)
endif()

string(JOIN "," ZARR_CONSUMER_MODES_CSV ${ZARR_CONSUMER_MODES})

set(ZARR_INSTALL_TEST_DIR "${PROJECT_BINARY_DIR}/install-test")
set(ZARR_INSTALL_CHECK "${CMAKE_CURRENT_LIST_DIR}/ZarrInstallCheck.cmake")
set(ZARR_CONSUMER_ARGS
  "-DSOURCE_DIR=${PROJECT_SOURCE_DIR}/tests/consumer"
  "-DLIBDIR=${CMAKE_INSTALL_LIBDIR}"
  "-DVERSION=${PROJECT_VERSION}"
  "-DC_COMPILER=${CMAKE_C_COMPILER}"
  "-DCXX_COMPILER=${CMAKE_CXX_COMPILER}"
  "-DFortran_COMPILER=${CMAKE_Fortran_COMPILER}"
  "-DGENERATOR=${CMAKE_GENERATOR}"
  "-DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}"
  "-DPKG_CONFIG=${ZARR_PKG_CONFIG}"
  "-DREADELF=${ZARR_READELF}")

add_test(NAME install.symbols
  COMMAND "${CMAKE_COMMAND}" -DACTION=symbols "-DLIB=${ZARR_SHARED_LIB}" "-DNM=${ZARR_NM}"
          -P "${ZARR_INSTALL_CHECK}")

add_test(NAME install.stage
  COMMAND "${CMAKE_COMMAND}" -DACTION=stage "-DBUILD_DIR=${PROJECT_BINARY_DIR}"
          "-DPREFIX=${ZARR_INSTALL_TEST_DIR}/stage" -P "${ZARR_INSTALL_CHECK}")
set_tests_properties(install.stage PROPERTIES FIXTURES_SETUP zarr_stage)

add_test(NAME install.layout
  COMMAND "${CMAKE_COMMAND}" -DACTION=layout "-DPREFIX=${ZARR_INSTALL_TEST_DIR}/stage"
          "-DLIBDIR=${CMAKE_INSTALL_LIBDIR}" "-DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}"
          "-DVERSION=${PROJECT_VERSION}" "-DREADELF=${ZARR_READELF}" "-DNM=${ZARR_NM}"
          "-DSOURCE_ROOT=${PROJECT_SOURCE_DIR}" "-DFORTRAN=${ZARR_INSTALL_FORTRAN}"
          "-DPKG_CONFIG=${ZARR_PKG_CONFIG}" "-DDEBUG_INFO=${ZARR_INSTALL_DEBUG_INFO}"
          "-DBUILD_ROOT=${PROJECT_BINARY_DIR}" -P "${ZARR_INSTALL_CHECK}")
set_tests_properties(install.layout PROPERTIES FIXTURES_REQUIRED zarr_stage)

add_test(NAME install.strip
  COMMAND "${CMAKE_COMMAND}" -DACTION=strip "-DBUILD_DIR=${PROJECT_BINARY_DIR}"
          "-DPREFIX=${ZARR_INSTALL_TEST_DIR}/stripped" "-DSTAGE=${ZARR_INSTALL_TEST_DIR}/stage"
          "-DLIBDIR=${CMAKE_INSTALL_LIBDIR}" "-DVERSION=${PROJECT_VERSION}" "-DREADELF=${ZARR_READELF}"
          "-DNM=${ZARR_NM}" -P "${ZARR_INSTALL_CHECK}")
set_tests_properties(install.strip PROPERTIES FIXTURES_REQUIRED zarr_stage)

foreach(mode IN LISTS ZARR_CONSUMER_MODES)
  string(REPLACE "-" "_" name "install.${mode}")
  add_test(NAME ${name}
    COMMAND "${CMAKE_COMMAND}" -DACTION=consumer "-DPREFIX=${ZARR_INSTALL_TEST_DIR}/stage"
            "-DWORK_DIR=${ZARR_INSTALL_TEST_DIR}/consumers" "-DMODES=${mode}"
            ${ZARR_CONSUMER_ARGS} -P "${ZARR_INSTALL_CHECK}")
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED zarr_stage)
endforeach()

add_test(NAME install.relocated
  COMMAND "${CMAKE_COMMAND}" -DACTION=relocate "-DBUILD_DIR=${PROJECT_BINARY_DIR}"
          "-DWORK_DIR=${ZARR_INSTALL_TEST_DIR}/relocated"
          "-DMODES=${ZARR_CONSUMER_MODES_CSV}" -DDEFINE_PREFIX=ON
          ${ZARR_CONSUMER_ARGS} -P "${ZARR_INSTALL_CHECK}")

# Both install the build tree (cmake --install writes install_manifest.txt there).
set_tests_properties(install.stage install.relocated install.strip PROPERTIES RESOURCE_LOCK zarr_install)
get_property(zarr_install_tests DIRECTORY PROPERTY TESTS)
list(FILTER zarr_install_tests INCLUDE REGEX "^install\\.")
set_tests_properties(${zarr_install_tests} PROPERTIES LABELS "install" TIMEOUT 600)
