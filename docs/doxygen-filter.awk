# Doxygen input filter for include/zarr.h (docs/Doxyfile.in, FILTER_PATTERNS), run as
# `awk -f docs/doxygen-filter.awk zarr.h`. The header itself is not changed, and every line
# keeps its number, so doxygen's messages point at the real header.
#
# cbindgen writes the doc comments as plain `//` lines (documentation_style = "c99"), which
# doxygen does not read as documentation. This turns each block into `///` lines whose first
# line starts with @brief (the first paragraph is the one-line summary the conventions ask
# for), makes the Rust-style "# Safety" heading a titled paragraph, makes the file comment the
# file's documentation, and documents the macros that build.rs writes under plain /* */
# comments.

NR == 1 && $0 == "/*" { print "/** @file"; next }

# build.rs writes these macros under plain /* */ comments: document them where they stand.
/^#define ZARR_VERSION_MAJOR / { print $0 " /**< @brief Major version of the library these declarations belong to. */"; in_block = 0; next }
/^#define ZARR_VERSION_MINOR / { print $0 " /**< @brief Minor version of the library these declarations belong to. */"; in_block = 0; next }
/^#define ZARR_VERSION_PATCH / { print $0 " /**< @brief Patch version of the library these declarations belong to. */"; in_block = 0; next }
/^#define ZARR_VERSION_STRING / {
    print $0 " /**< @brief The version as \"MAJOR.MINOR.PATCH\" (zarr_version_string() gives the library's). */"
    in_block = 0
    next
}
/^#define ZARR_NODISCARD/ {
    print $0 " /**< @brief Marks status-returning functions, so that compilers warn when a status is ignored. */"
    in_block = 0
    next
}

/^[ \t]*\/\/( |$)/ {
    line = $0
    if (line ~ /^[ \t]*\/\/ # [A-Za-z ]+$/) {
        sub(/\/\/ # /, "/// @par ", line)
    } else if (!in_block) {
        sub(/\/\/ ?/, "/// @brief ", line)
    } else {
        sub(/\/\//, "///", line)
    }
    in_block = 1
    print line
    next
}

{ in_block = 0; print }
