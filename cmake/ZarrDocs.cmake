# API reference: `cmake --build build --target docs` renders the doc comments of zarr.h
# with doxygen into build/docs/html (index.html). The target exists only when doxygen is
# found (apt-get install doxygen); nothing else depends on it.

find_package(Doxygen QUIET)
if(DOXYGEN_FOUND)
  set(ZARR_DOCS_OUTPUT_DIR "${PROJECT_BINARY_DIR}/docs")
  configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${ZARR_DOCS_OUTPUT_DIR}/Doxyfile" @ONLY)
  add_custom_command(
    OUTPUT "${ZARR_DOCS_OUTPUT_DIR}/html/index.html"
    COMMAND "${DOXYGEN_EXECUTABLE}" "${ZARR_DOCS_OUTPUT_DIR}/Doxyfile"
    DEPENDS "${ZARR_DOCS_OUTPUT_DIR}/Doxyfile" "${ZARR_INCLUDE_DIR}/zarr.h"
            "${PROJECT_SOURCE_DIR}/docs/mainpage.md" "${PROJECT_SOURCE_DIR}/docs/doxygen-filter.awk"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "doxygen: API reference in ${ZARR_DOCS_OUTPUT_DIR}/html/index.html")
  add_custom_target(docs DEPENDS "${ZARR_DOCS_OUTPUT_DIR}/html/index.html")
  message(STATUS "doxygen ${DOXYGEN_VERSION}: `cmake --build . --target docs` renders the API reference")
else()
  message(STATUS "doxygen not found: no `docs` target (apt-get install doxygen)")
endif()
