# Installation rules: `cmake --install build --prefix P` lays out
#
#   P/include/zarr.h
#   P/include/zarr.hpp                the C++ binding (bindings/cpp), target zarr::cpp
#   P/include/zarr.mod                the Fortran module (bindings/fortran), target zarr::fortran
#   P/lib/libzarr.so.X.Y.Z            the shared library (SONAME libzarr.so.X)
#   P/lib/libzarr.so.X -> libzarr.so.X.Y.Z
#   P/lib/libzarr.so   -> libzarr.so.X
#   P/lib/libzarr.a
#   P/lib/libzarr_fortran.a           the compiled Fortran module
#   P/include/zarr_mpi.h              MPI communicators (mpi/, when MPI is found), target
#   P/lib/libzarr_mpi.so.X.Y.Z, .so.X, .so, libzarr_mpi.a                      zarr::mpi
#   P/lib/pkgconfig/zarr.pc, zarr-fortran.pc, zarr-mpi.pc
#   P/lib/cmake/zarr/zarrConfig.cmake, zarrConfigVersion.cmake, zarrFortran.cmake,
#                     zarrMpi.cmake
#   P/share/zarr/fortran/zarr.f90     the Fortran module's source, for other compilers
#
# The libraries are installed without their debug information (cargo builds libzarr's own
# code with line tables for profiling; that is 18 MB of libzarr.so's 28 MB): `strip
# --strip-debug` runs on the installed copies. -DZARR_INSTALL_DEBUG_INFO=ON keeps it (for a
# distribution that splits it off itself). `cmake --install --strip` removes the symbol
# tables as well (--strip-unneeded on libzarr.so; the dynamic symbols stay, of course).
#
# The library directory is `lib` on every system unless CMAKE_INSTALL_LIBDIR is given
# (e.g. -DCMAKE_INSTALL_LIBDIR=lib64 or lib/x86_64-linux-gnu): GNUInstallDirs alone would pick
# lib64 or a multiarch directory depending on the distribution and the prefix, and one
# predictable answer is worth more here. Whatever it is, zarr.pc and zarrConfig.cmake are
# generated from the same variables as the install rules below.
#
# The CMake package is relocatable: zarrConfig.cmake finds the prefix from its own location
# (CMAKE_CURRENT_LIST_DIR), so a prefix may be copied or moved as a whole. zarr.pc names the
# install prefix, normalised, as every distribution's .pc files do (a ${pcfiledir}/../..
# prefix gave libdirs like P/lib/pkgconfig/../../lib that ended up in users' run paths); it
# is written at install time, so `cmake --install --prefix` and DESTDIR get it right. A moved
# prefix works with `pkg-config --define-prefix`, which takes the prefix from the .pc file's
# location.
#
# Expects from cmake/ZarrCargo.cmake: ZARR_SHARED_LIB, ZARR_STATIC_LIB, ZARR_INCLUDE_DIR,
# ZARR_STATIC_SYSTEM_LIBS.

if(NOT DEFINED CMAKE_INSTALL_LIBDIR)
  set(CMAKE_INSTALL_LIBDIR lib CACHE PATH "Object code libraries (lib)")
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

foreach(dir IN ITEMS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
  if(IS_ABSOLUTE "${${dir}}")
    message(FATAL_ERROR "${dir} (${${dir}}) must be relative to the prefix: the installed "
                        "package computes the prefix from its own location")
  endif()
endforeach()

set(ZARR_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/zarr")
set(ZARR_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
set(ZARR_SHARED_REAL_NAME "libzarr.so.${PROJECT_VERSION}")
set(ZARR_SHARED_SONAME "libzarr.so.${PROJECT_VERSION_MAJOR}")
set(ZARR_PACKAGE_DIR "${PROJECT_BINARY_DIR}/zarr-package")

# The shared library under its real name, and the two symbolic links. The links are made in
# the build tree (dangling there) and installed as links.
install(FILES "${ZARR_SHARED_LIB}" DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RENAME "${ZARR_SHARED_REAL_NAME}"
  PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
              WORLD_READ WORLD_EXECUTE)
file(MAKE_DIRECTORY "${ZARR_PACKAGE_DIR}/links")
file(CREATE_LINK "${ZARR_SHARED_REAL_NAME}" "${ZARR_PACKAGE_DIR}/links/${ZARR_SHARED_SONAME}"
  SYMBOLIC)
file(CREATE_LINK "${ZARR_SHARED_SONAME}" "${ZARR_PACKAGE_DIR}/links/libzarr.so" SYMBOLIC)
install(FILES "${ZARR_PACKAGE_DIR}/links/${ZARR_SHARED_SONAME}"
              "${ZARR_PACKAGE_DIR}/links/libzarr.so"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}")

install(FILES "${ZARR_STATIC_LIB}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES "${ZARR_INCLUDE_DIR}/zarr.h" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

# Strip the installed libraries (see the top of this file). CMake strips only what
# install(TARGETS) installs, and the libraries come from cargo, so it is done here.
option(ZARR_INSTALL_DEBUG_INFO "Install libzarr.so and libzarr.a with their debug information" OFF)
if(NOT CMAKE_STRIP)
  find_program(CMAKE_STRIP strip)
endif()
if(CMAKE_STRIP)
  install(CODE "
    set(_zarr_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
    set(_zarr_shared_flags --strip-debug)
    set(_zarr_static_flags --strip-debug)
    if(CMAKE_INSTALL_DO_STRIP)
      set(_zarr_shared_flags --strip-unneeded)
    elseif(${ZARR_INSTALL_DEBUG_INFO})
      set(_zarr_shared_flags)
      set(_zarr_static_flags)
    endif()
    foreach(_zarr_pair IN ITEMS \"${ZARR_SHARED_REAL_NAME}:shared\" \"libzarr.a:static\")
      string(REPLACE \":\" \";\" _zarr_pair \"\${_zarr_pair}\")
      list(GET _zarr_pair 0 _zarr_file)
      list(GET _zarr_pair 1 _zarr_kind)
      if(_zarr_\${_zarr_kind}_flags)
        message(STATUS \"Stripping (\${_zarr_\${_zarr_kind}_flags}): \${_zarr_dir}/\${_zarr_file}\")
        execute_process(COMMAND \"${CMAKE_STRIP}\" \${_zarr_\${_zarr_kind}_flags} \"\${_zarr_dir}/\${_zarr_file}\"
                        RESULT_VARIABLE _zarr_rc)
        if(NOT _zarr_rc EQUAL 0)
          message(FATAL_ERROR \"${CMAKE_STRIP} failed on \${_zarr_dir}/\${_zarr_file}\")
        endif()
      endif()
    endforeach()")
else()
  message(WARNING "strip not found: libzarr.so and libzarr.a are installed with their debug "
                  "information (about 28 MB and 82 MB instead of 10 MB and 44 MB)")
endif()

# CMake package: find_package(zarr CONFIG) gives zarr::zarr and zarr::zarr_static.
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/zarrConfig.cmake.in"
  "${ZARR_PACKAGE_DIR}/zarrConfig.cmake"
  INSTALL_DESTINATION "${ZARR_INSTALL_CMAKEDIR}"
  NO_SET_AND_CHECK_MACRO)
# 0.x releases: SameMajorVersion accepts any 0.y, matching the SONAME libzarr.so.0.
write_basic_package_version_file("${ZARR_PACKAGE_DIR}/zarrConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES "${ZARR_PACKAGE_DIR}/zarrConfig.cmake" "${ZARR_PACKAGE_DIR}/zarrConfigVersion.cmake"
  DESTINATION "${ZARR_INSTALL_CMAKEDIR}")

# pkg-config: written at install time with the prefix of that install, normalised.
set(ZARR_PC_LIBS_PRIVATE "")
foreach(lib IN LISTS ZARR_STATIC_SYSTEM_LIBS)
  string(APPEND ZARR_PC_LIBS_PRIVATE " -l${lib}")
endforeach()
string(STRIP "${ZARR_PC_LIBS_PRIVATE}" ZARR_PC_LIBS_PRIVATE)
# zarr_install_pkgconfig(<template> <name>): configure cmake/<template> into
# <libdir>/pkgconfig/<name> at install time, with @ZARR_PC_PREFIX@ the install prefix.
function(zarr_install_pkgconfig template name)
  set(ZARR_PC_PREFIX "@ZARR_PC_PREFIX@") # filled in at install time
  configure_file("${PROJECT_SOURCE_DIR}/cmake/${template}" "${ZARR_PACKAGE_DIR}/${name}.in" @ONLY)
  install(CODE "
    get_filename_component(ZARR_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\" ABSOLUTE)
    configure_file(\"${ZARR_PACKAGE_DIR}/${name}.in\"
                   \"\$ENV{DESTDIR}\${ZARR_PC_PREFIX}/${ZARR_INSTALL_PKGCONFIGDIR}/${name}\" @ONLY)
    message(STATUS \"Installing: \$ENV{DESTDIR}\${ZARR_PC_PREFIX}/${ZARR_INSTALL_PKGCONFIGDIR}/${name}\")
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES
         \"\$ENV{DESTDIR}\${ZARR_PC_PREFIX}/${ZARR_INSTALL_PKGCONFIGDIR}/${name}\")")
endfunction()
zarr_install_pkgconfig(zarr.pc.in zarr.pc)
