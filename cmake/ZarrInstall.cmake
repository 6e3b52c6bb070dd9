# Installation rules: `cmake --install build --prefix P` lays out
#
#   P/include/zarr.h
#   P/lib/libzarr.so.X.Y.Z            the shared library (SONAME libzarr.so.X)
#   P/lib/libzarr.so.X -> libzarr.so.X.Y.Z
#   P/lib/libzarr.so   -> libzarr.so.X
#   P/lib/libzarr.a
#   P/lib/pkgconfig/zarr.pc
#   P/lib/cmake/zarr/zarrConfig.cmake, zarrConfigVersion.cmake
#
# The library directory is `lib` on every system unless CMAKE_INSTALL_LIBDIR is given
# (e.g. -DCMAKE_INSTALL_LIBDIR=lib64 or lib/x86_64-linux-gnu): GNUInstallDirs alone would pick
# lib64 or a multiarch directory depending on the distribution and the prefix, and one
# predictable answer is worth more here. Whatever it is, zarr.pc and zarrConfig.cmake are
# generated from the same variables as the install rules below.
#
# The package is relocatable: zarrConfig.cmake finds the prefix from its own location
# (CMAKE_CURRENT_LIST_DIR) and zarr.pc from ${pcfiledir}; no absolute path is written into
# either, so a prefix may be copied or moved as a whole.
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

# pkg-config: the prefix is the .pc file's directory, as many levels up as the pkgconfig
# directory lies below the prefix (../.. for lib/pkgconfig).
file(RELATIVE_PATH ZARR_PC_PREFIX_FROM_PCFILEDIR "/prefix/${ZARR_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" ZARR_PC_PREFIX_FROM_PCFILEDIR "${ZARR_PC_PREFIX_FROM_PCFILEDIR}")
set(ZARR_PC_LIBS_PRIVATE "")
foreach(lib IN LISTS ZARR_STATIC_SYSTEM_LIBS)
  string(APPEND ZARR_PC_LIBS_PRIVATE " -l${lib}")
endforeach()
string(STRIP "${ZARR_PC_LIBS_PRIVATE}" ZARR_PC_LIBS_PRIVATE)
configure_file("${CMAKE_CURRENT_LIST_DIR}/zarr.pc.in" "${ZARR_PACKAGE_DIR}/zarr.pc" @ONLY)
install(FILES "${ZARR_PACKAGE_DIR}/zarr.pc" DESTINATION "${ZARR_INSTALL_PKGCONFIGDIR}")
