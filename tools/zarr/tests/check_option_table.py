"""Checks that the CLI's table of store options (tools/zarr/store_options.c, which fits
$ZARR_STORE_OPTIONS to each store) names the same keys, for the same schemes, as the
library's (src/storage/remote/options.rs, KEYS). A key added to the library and not to
the tool would be refused in the environment as a typo; one applying to another scheme
would break URLs again.

Usage: check_option_table.py OPTIONS_RS STORE_OPTIONS_C
"""

import re
import sys

RUST_SCHEMES = {"S3": "s3", "Http": "http", "File": "file", "Gcs": "gcs", "Azure": "azure",
                "IcechunkFile": "icechunk+file", "IcechunkS3": "icechunk+s3",
                "IcechunkGcs": "icechunk+gcs", "IcechunkAzure": "icechunk+azure",
                "ReferenceFile": "reference_file", "ReferenceS3": "reference_s3",
                "ReferenceHttp": "reference_http"}
C_SCHEMES = {"SCHEME_S3": "s3", "SCHEME_HTTP": "http", "SCHEME_FILE": "file",
             "SCHEME_GCS": "gcs", "SCHEME_AZURE": "azure",
             "SCHEME_ICECHUNK_FILE": "icechunk+file", "SCHEME_ICECHUNK_S3": "icechunk+s3",
             "SCHEME_ICECHUNK_GCS": "icechunk+gcs", "SCHEME_ICECHUNK_AZURE": "icechunk+azure",
             "SCHEME_REFERENCE_FILE": "reference_file", "SCHEME_REFERENCE_S3": "reference_s3",
             "SCHEME_REFERENCE_HTTP": "reference_http"}


def rust_schemes(listed):
    """The schemes of a list like 'Scheme::S3, Scheme::Http'."""
    return {RUST_SCHEMES[s.split("::")[1].strip()] for s in listed.split(",") if s.strip()}


def library_table(text):
    # Named lists (const OBJECT_STORES: &[Scheme] = &[...]) that KEYS may use.
    named = {name: rust_schemes(listed) for name, listed in
             re.findall(r'const (\w+): &\[Scheme\] =\s*&\[([^\]]*)\]', text)}
    block = text[text.index("const KEYS"):]
    block = block[:block.index("\n];")]
    entries = re.findall(r'\(\s*"(\w+)",\s*Kind::\w+(?:\([^)]*\))?,\s*(?:&\[([^\]]*)\]|(\w+))', block)
    return {key: rust_schemes(listed) if listed else named[name] for key, listed, name in entries}


def tool_table(text):
    # Named combinations (#define SCHEME_OBJECT_STORES (SCHEME_S3 | ...)) the table may use.
    named = {name: {C_SCHEMES[s.strip()] for s in bits.split("|")} for name, bits in
             re.findall(r'#define (SCHEME_\w+)\s*(?:\\\n)?\s*\(([A-Z0-9_ |\n]+)\)', text)}
    block = text[text.index("option_table[] = {"):]
    block = block[:block.index("};")]
    entries = re.findall(r'\{"(\w+)",\s*([A-Z0-9_ |]+)\}', block)
    return {key: set().union(*({C_SCHEMES[s]} if s in C_SCHEMES else named[s]
                               for s in (part.strip() for part in schemes.split("|"))))
            for key, schemes in entries}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    library = library_table(open(sys.argv[1]).read())
    tool = tool_table(open(sys.argv[2]).read())
    if len(library) < 10:
        sys.exit("could not read the library's KEYS table (%d keys)" % len(library))
    problems = []
    for key in sorted(set(library) | set(tool)):
        if key not in tool:
            problems.append("'%s' is in the library's table, not the tool's" % key)
        elif key not in library:
            problems.append("'%s' is in the tool's table, not the library's" % key)
        elif library[key] != tool[key]:
            problems.append("'%s' applies to %s in the library, %s in the tool"
                            % (key, sorted(library[key]), sorted(tool[key])))
    for p in problems:
        print(p, file=sys.stderr)
    print("%d options compared, %d differences" % (len(library), len(problems)))
    sys.exit(1 if problems else 0)


main()
