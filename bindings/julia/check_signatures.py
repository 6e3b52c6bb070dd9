#!/usr/bin/env python3
"""Check the Julia binding's @ccall signatures against the C prototypes in zarr.h.

Julia cannot be installed on the development machine, so this is what keeps
bindings/julia/LibZarr/src/LibZarr.jl honest: for every `@ccall` it checks that

- the library is given as `libzarr()` (the module's one library function),
- the function exists in zarr.h,
- the number of arguments equals the prototype's,
- each argument type and the return type is a Julia type that matches the C type exactly
  (int32_t / zarr_status -> Int32, size_t -> Csize_t, uint64_t -> UInt64, char * ->
  Cstring or Ptr{UInt8}, handles -> Ptr{Cvoid}, T ** -> Ref{Ptr{..}} or Ptr{Ptr{..}}, ...;
  Cint, Int, UInt and Clong are refused).

Functions of zarr.h without any @ccall are listed as a note (not an error) unless
--require-all is given. With --mpi-header ZARR_MPI_H, the functions of libzarr_mpi's header
are checked the same way, except that they must be called through `libzarr_mpi()` and that
wrapping them is optional (zarr_comm_create_mpi takes an MPI_Comm, which only the _f form
avoids). Python standard library only.

usage: check_signatures.py [--require-all] [--mpi-header ZARR_MPI_H] ZARR_H JULIA_FILE...
       check_signatures.py --self-test      (checks that the checker catches mistakes)
"""

import re
import sys

HANDLES = {"zarr_store", "zarr_group", "zarr_array", "zarr_array_builder", "zarr_sink",
           "zarr_comm"}

# Structs passed by pointer -> the Julia struct that mirrors them (or Ptr{Cvoid}).
STRUCTS = {"zarr_store_callbacks": "ZarrStoreCallbacks", "zarr_comm_ops": "ZarrCommOps"}

# C scalar types (after typedef resolution) -> the one Julia spelling accepted.
SCALARS = {
    "int8_t": "Int8",
    "uint8_t": "UInt8",
    "int32_t": "Int32",
    "uint32_t": "UInt32",
    "uint64_t": "UInt64",
    "int64_t": "Int64",
    "size_t": "Csize_t",
    "bool": "Bool",
    "double": "Float64",
}
TYPEDEFS = {"zarr_status": "int32_t", "zarr_data_type": "int32_t", "zarr_node_type": "int32_t",
            "zarr_write_protection": "int32_t", "zarr_reduce_op": "int32_t",
            # zarr_mpi.h: "MPI_Fint is a C int in every MPI this library knows".
            "MPI_Fint": "int32_t"}
CHAR_POINTERS = {"Cstring", "Ptr{UInt8}", "Ptr{Cchar}"}


class CType:
    """A C type as (base, pointer depth); const is irrelevant to the Julia spelling."""

    def __init__(self, text):
        self.text = " ".join(text.split())
        tokens = re.findall(r"[A-Za-z_]\w*|\*", text)
        self.stars = tokens.count("*")
        words = [t for t in tokens if t not in ("*", "const")]
        if len(words) != 1:
            raise ValueError("cannot read C type %r" % text)
        self.base = TYPEDEFS.get(words[0], words[0])

    def julia_types(self):
        """The set of Julia type spellings that match this C type."""
        b, n = self.base, self.stars
        if n == 0:
            if b == "void":
                return {"Cvoid"}
            if b in SCALARS:
                return {SCALARS[b]}
        elif n == 1:
            if b == "char":
                return set(CHAR_POINTERS)
            if b == "void" or b in HANDLES:
                return {"Ptr{Cvoid}"}
            if b in STRUCTS:
                j = STRUCTS[b]
                return {"Ptr{Cvoid}", "Ptr{%s}" % j, "Ref{%s}" % j}
            if b in SCALARS:
                j = SCALARS[b]
                return {"Ptr{%s}" % j, "Ref{%s}" % j}
        elif n == 2:
            if b == "char":
                return {"Ptr{Ptr{UInt8}}", "Ref{Ptr{UInt8}}", "Ptr{Ptr{Cchar}}", "Ref{Ptr{Cchar}}"}
            if b in HANDLES or b == "void":
                return {"Ptr{Ptr{Cvoid}}", "Ref{Ptr{Cvoid}}"}
        raise ValueError("no Julia mapping for C type %r" % self.text)


def parse_header(text):
    """{name: (return CType, [param CType...])} for every zarr_* prototype in zarr.h."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
    text = text.replace("ZARR_NODISCARD", " ").replace('extern "C"', " ")
    text = text.replace("{", ";").replace("}", ";")
    protos = {}
    for m in re.finditer(r"([A-Za-z_][\w\s\*]*?)\b(zarr_\w+)\s*\(([^;()]*)\)\s*;", text):
        ret, name, params = m.group(1), m.group(2), m.group(3).strip()
        if ret.split()[0] == "typedef":
            continue
        plist = []
        if params and params != "void":
            for p in params.split(","):
                tokens = re.findall(r"[A-Za-z_]\w*|\*", p)
                if not tokens:
                    raise ValueError("%s: empty parameter" % name)
                # The last identifier is the parameter's name (zarr.h names them all).
                plist.append(CType(" ".join(tokens[:-1])))
        protos[name] = (CType(ret), plist)
    if not protos:
        raise ValueError("no zarr_* prototypes found in the header")
    return protos


def blank_strings_and_comments(src):
    """Julia source with comments and string contents replaced by spaces (newlines kept),
    so that text inside docstrings and comments is never taken for code. String
    interpolations `$(...)` stay code."""
    out = list(src)
    i, n = 0, len(src)
    # Stack of modes: "code" (with paren depth for interpolations) or a string delimiter.
    stack = [["code", 0]]

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        mode = stack[-1]
        c = src[i]
        if mode[0] == "code":
            if src.startswith("#=", i):
                j = src.find("=#", i + 2)
                j = n if j < 0 else j + 2
                blank(i, j)
                i = j
            elif c == "#":
                j = src.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
            elif src.startswith('"""', i):
                stack.append(['"""', 0])
                i += 3
            elif c == '"':
                stack.append(['"', 0])
                i += 1
            elif c == "(":
                mode[1] += 1
                i += 1
            elif c == ")":
                if len(stack) > 1 and mode[1] == 0:
                    stack.pop()  # end of an interpolation: back to the string
                else:
                    mode[1] -= 1
                i += 1
            else:
                i += 1
        else:
            delim = mode[0]
            if c == "\\":
                blank(i, min(i + 2, n))
                i += 2
            elif src.startswith(delim, i):
                stack.pop()
                i += len(delim)
            elif src.startswith("$(", i):
                stack.append(["code", 0])
                i += 2
            else:
                blank(i, i + 1)
                i += 1
    return "".join(out)


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket closing the one opened at text[i - 1]."""
    depth = 1
    pairs = {"(": ")", "{": "}", "[": "]"}
    closers = set(pairs.values())
    while i < len(text):
        c = text[i]
        if c in pairs:
            depth += 1
        elif c in closers:
            depth -= 1
            if depth == 0:
                if c != close_ch:
                    raise ValueError("unbalanced %s...%s" % (open_ch, c))
                return i + 1
        i += 1
    raise ValueError("unclosed %s" % open_ch)


def split_top(text, sep):
    """Split at `sep` occurrences outside brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def read_type(text, i):
    """A Julia type spelled at text[i:] (identifier with optional {...}); (type, end)."""
    m = re.compile(r"\s*([A-Za-z_][\w.]*)").match(text, i)
    if not m:
        raise ValueError("expected a type after '::'")
    j = m.end()
    if j < len(text) and text[j] == "{":
        j = matching(text, j + 1, "{", "}")
    return re.sub(r"\s+", "", text[m.start(1):j]), j


def parse_ccalls(src):
    """[(line, library, name, [(argument, type)...], return type)] for every @ccall."""
    code = blank_strings_and_comments(src)
    calls = []
    for m in re.finditer(r"@ccall\b", code):
        line = code.count("\n", 0, m.start()) + 1
        head = re.compile(r"\s*(.*?)\.([A-Za-z_]\w*)\(", re.S).match(code, m.end())
        if not head:
            raise ValueError("line %d: cannot read @ccall (expected library.function(...))" % line)
        library, name = head.group(1).strip(), head.group(2)
        end = matching(code, head.end(), "(", ")")
        inner = code[head.end():end - 1].strip()
        args = []
        if inner:
            for a in split_top(inner, ","):
                pieces = split_top(a, "::")
                if len(pieces) < 2:
                    raise ValueError("line %d: %s: argument %r has no ::Type" % (line, name, a.strip()))
                args.append(("::".join(pieces[:-1]).strip(), re.sub(r"\s+", "", pieces[-1])))
        rest = code[end:]
        if not rest.lstrip().startswith("::"):
            raise ValueError("line %d: %s: @ccall without ::ReturnType" % (line, name))
        ret, _ = read_type(code, end + rest.index("::") + 2)
        calls.append((line, library, name, args, ret))
    return calls


def check(header_text, julia_sources, require_all=False, mpi_header_text=None):
    """(errors, notes) comparing the @ccalls of julia_sources {path: text} with the header
    (and with libzarr_mpi's header, whose functions are called through libzarr_mpi())."""
    protos = parse_header(header_text)
    libraries = {name: "libzarr()" for name in protos}
    mpi_protos = parse_header(mpi_header_text) if mpi_header_text is not None else {}
    for name, proto in mpi_protos.items():
        if name not in protos:
            protos[name] = proto
            libraries[name] = "libzarr_mpi()"
    errors, notes, used = [], [], set()
    for path, src in julia_sources.items():
        try:
            calls = parse_ccalls(src)
        except ValueError as e:
            errors.append("%s: %s" % (path, e))
            continue
        for line, library, name, args, ret in calls:
            where = "%s:%d: %s" % (path, line, name)
            used.add(name)
            if name not in protos:
                errors.append("%s: no such function in zarr.h%s"
                              % (where, " or zarr_mpi.h" if mpi_protos else ""))
                continue
            if library != libraries[name]:
                errors.append("%s: library is %r, expected %s" % (where, library, libraries[name]))
            cret, cparams = protos[name]
            if len(args) != len(cparams):
                errors.append("%s: %d arguments, zarr.h has %d" % (where, len(args), len(cparams)))
            for k, ((expr, jtype), ctype) in enumerate(zip(args, cparams), 1):
                allowed = ctype.julia_types()
                if jtype not in allowed:
                    errors.append("%s: argument %d (%s) is %s, C type %s needs %s"
                                  % (where, k, expr, jtype, ctype.text, " or ".join(sorted(allowed))))
            allowed = cret.julia_types()
            if ret not in allowed:
                errors.append("%s: returns %s, C type %s needs %s"
                              % (where, ret, cret.text, " or ".join(sorted(allowed))))
    # A deprecated name (ZARR_DEPRECATED in zarr.h) needs no wrapper: the binding calls
    # the function under its new name.
    deprecated = set(re.findall(r"ZARR_DEPRECATED\([^)]*\)[\w\s\*]*?\b(zarr_\w+)\s*\(", header_text))
    missing = sorted(set(protos) - used - deprecated - set(mpi_protos))
    if missing:
        msg = "zarr.h functions without a @ccall: " + ", ".join(missing)
        (errors if require_all else notes).append(msg)
    mpi_missing = sorted(n for n in mpi_protos if n not in used and libraries[n] != "libzarr()")
    if mpi_missing:
        notes.append("zarr_mpi.h functions without a @ccall (optional): " + ", ".join(mpi_missing))
    return errors, notes, len(protos), used


SELF_TEST_HEADER = """
#define ZARR_NODISCARD
typedef int32_t zarr_status;
typedef struct zarr_array zarr_array;
// A comment mentioning zarr_fake(int x);
ZARR_NODISCARD
zarr_status zarr_array_read(const zarr_array *array,
                            size_t ndim,
                            const uint64_t *start,
                            void *buf,
                            size_t buf_len);
ZARR_NODISCARD zarr_status zarr_array_metadata_json(const zarr_array *array, char **json_out);
const char *zarr_version_string(void);
void zarr_array_free(zarr_array *array);
"""

SELF_TEST_GOOD = '''
"""Docstring: @ccall libzarr().zarr_fake(x::Cint)::Cint is not code."""
f(a, s, b) = @ccall libzarr().zarr_array_read(a::Ptr{Cvoid}, length(s)::Csize_t,
                                              s::Ptr{UInt64}, b::Ptr{Cvoid}, sizeof(b)::Csize_t)::Int32
g(a, o) = @ccall libzarr().zarr_array_metadata_json(a::Ptr{Cvoid}, o::Ref{Ptr{UInt8}})::Int32
v() = unsafe_string(@ccall libzarr().zarr_version_string()::Cstring)
h(a) = @ccall libzarr().zarr_array_free(a.ptr::Ptr{Cvoid})::Cvoid  # @ccall in a comment
m(x) = "interpolated $(x) and $(string("nested")) strings"
'''

SELF_TEST_MPI_HEADER = """
#include <mpi.h>
#include "zarr.h"
#ifdef __cplusplus
extern "C" {
#endif
ZARR_NODISCARD zarr_status zarr_comm_create_mpi(MPI_Comm comm, zarr_comm **out);
ZARR_NODISCARD zarr_status zarr_comm_create_mpi_f(MPI_Fint comm, zarr_comm **out);
#ifdef __cplusplus
}
#endif
"""

SELF_TEST_BAD = {
    "int for int32/size_t": ("zarr_array_metadata_json(a::Ptr{Cvoid}, o::Ref{Ptr{UInt8}})::Cint", "returns Cint"),
    "argument count": ("zarr_array_metadata_json(a::Ptr{Cvoid})::Int32", "1 arguments, zarr.h has 2"),
    "argument type": ("zarr_array_read(a::Ptr{Cvoid}, n::Int, s::Ptr{UInt64}, b::Ptr{Cvoid}, l::Csize_t)::Int32",
                      "argument 2 (n) is Int"),
    "pointer depth": ("zarr_array_metadata_json(a::Ptr{Cvoid}, o::Ptr{UInt8})::Int32", "argument 2 (o) is Ptr{UInt8}"),
    "unknown function": ("zarr_array_fly()::Int32", "no such function"),
    "element type": ("zarr_array_read(a::Ptr{Cvoid}, n::Csize_t, s::Ptr{Int64}, b::Ptr{Cvoid}, l::Csize_t)::Int32",
                     "argument 3 (s) is Ptr{Int64}"),
}


def self_test():
    failures = 0
    errors, notes, _, used = check(SELF_TEST_HEADER, {"good.jl": SELF_TEST_GOOD}, require_all=True)
    if errors or used != {"zarr_array_read", "zarr_array_metadata_json", "zarr_version_string",
                          "zarr_array_free"}:
        print("self-test: the correct file was rejected: %s (used %s)" % (errors, sorted(used)))
        failures += 1
    for label, (call, expected) in SELF_TEST_BAD.items():
        errors, _, _, _ = check(SELF_TEST_HEADER, {"bad.jl": "x = @ccall libzarr()." + call + "\n"})
        if not any(expected in e for e in errors):
            print("self-test: %s: expected an error containing %r, got %s" % (label, expected, errors))
            failures += 1
    errors, _, _, _ = check(SELF_TEST_HEADER, {"lib.jl": "x = @ccall \"libzarr\".zarr_version_string()::Cstring\n"})
    if not any("expected libzarr()" in e for e in errors):
        print("self-test: a literal library name was accepted")
        failures += 1
    errors, _, _, _ = check(SELF_TEST_HEADER, {"none.jl": "x = 1\n"}, require_all=True)
    if not any("without a @ccall" in e for e in errors):
        print("self-test: --require-all did not report unwrapped functions")
        failures += 1
    good_mpi = ("x = @ccall libzarr_mpi().zarr_comm_create_mpi_f(h::Int32, o::Ref{Ptr{Cvoid}})::Int32\n"
                + SELF_TEST_GOOD)
    errors, notes, _, _ = check(SELF_TEST_HEADER, {"mpi.jl": good_mpi}, require_all=True,
                                mpi_header_text=SELF_TEST_MPI_HEADER)
    if errors or not any("zarr_comm_create_mpi" in n and "optional" in n for n in notes):
        print("self-test: a correct libzarr_mpi() call was rejected: %s %s" % (errors, notes))
        failures += 1
    for label, call, expected in [
            ("MPI function through libzarr()",
             "libzarr().zarr_comm_create_mpi_f(h::Int32, o::Ref{Ptr{Cvoid}})::Int32",
             "expected libzarr_mpi()"),
            ("zarr.h function through libzarr_mpi()",
             "libzarr_mpi().zarr_version_string()::Cstring", "expected libzarr()"),
            ("MPI_Fint as Cint", "libzarr_mpi().zarr_comm_create_mpi_f(h::Cint, o::Ref{Ptr{Cvoid}})::Int32",
             "argument 1 (h) is Cint")]:
        errors, _, _, _ = check(SELF_TEST_HEADER, {"bad.jl": "x = @ccall " + call + "\n"},
                                mpi_header_text=SELF_TEST_MPI_HEADER)
        if not any(expected in e for e in errors):
            print("self-test: %s: expected an error containing %r, got %s" % (label, expected, errors))
            failures += 1
    print("self-test: %s" % ("ok" if failures == 0 else "%d failures" % failures))
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args = argv[1:]
    require_all = "--require-all" in args
    args = [a for a in args if a != "--require-all"]
    mpi_header = None
    if "--mpi-header" in args:
        k = args.index("--mpi-header")
        if k + 1 >= len(args):
            print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
            return 2
        with open(args[k + 1], encoding="utf-8") as f:
            mpi_header = f.read()
        del args[k:k + 2]
    if len(args) < 2:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        header = f.read()
    sources = {}
    for path in args[1:]:
        with open(path, encoding="utf-8") as f:
            sources[path] = f.read()
    errors, notes, nprotos, used = check(header, sources, require_all, mpi_header)
    ncalls = sum(len(parse_ccalls(s)) for s in sources.values()) if not errors else None
    for e in errors:
        print("error: " + e)
    for n in notes:
        print("note: " + n)
    if errors:
        print("%d signature errors" % len(errors))
        return 1
    print("ok: %d @ccall sites, %d of %d %s functions wrapped, all signatures match"
          % (ncalls, len(used), nprotos, "zarr.h and zarr_mpi.h" if mpi_header else "zarr.h"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
