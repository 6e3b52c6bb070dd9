#!/usr/bin/env python3
"""Checks the Fortran reference of docs/bindings.md against the Fortran modules.

Usage: check_reference.py BINDINGS_MD ZARR_H ZARR_MPI_H MODULE.f90 [MODULE.f90 ...]

The reference is the part of BINDINGS_MD between the lines
`<!-- fortran-reference: begin -->` and `<!-- fortran-reference: end -->`. Checked:

* every public procedure of the modules (the names of their `public ::` statements that
  are procedures or generic interfaces) is documented there, and every name documented
  there is such a procedure: nothing missing, nothing stale;
* the Fortran layer (names not starting with `c_`): one entry per procedure, a list item
  starting with **`name`**, holding at least one call form `name(arg, ... [, opt, ...])`
  in backticks whose argument names are the dummy arguments of the procedure (for a
  generic: of one of its specific procedures; optional arguments in brackets); each call
  form before the entry's "Example:" (if any) must match some specific procedure;
* the raw layer (`c_zarr_*`): every name in backticks in the paragraph starting with
  "Raw layer:"; each binds (bind(C, name=...)) the C function of the same name without the
  `c_`, or the one the reference names right after it as "(binds `zarr_...`)", and that C
  function is declared in zarr.h or zarr_mpi.h;
* the paragraph starting with "Not bound:" lists exactly the functions of zarr.h that no
  `c_zarr_*` interface binds.

Exit status 1, naming each problem, when any check fails; 0 otherwise.
"""
import re
import sys

BEGIN = "<!-- fortran-reference: begin -->"
END = "<!-- fortran-reference: end -->"


def fortran_statements(text):
    """The statements of Fortran free-form source: comments removed, continuations joined."""
    statements, pending = [], ""
    for line in text.split("\n"):
        # A `!` outside a character literal starts a comment (no `!` in literals of the
        # declarations read here, but keep quotes intact anyway).
        code, quote = [], None
        for ch in line:
            if quote:
                code.append(ch)
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
                code.append(ch)
            elif ch == "!":
                break
            else:
                code.append(ch)
        code = "".join(code).rstrip()
        if pending:
            code = pending + " " + code.lstrip().lstrip("&")
        if code.endswith("&"):
            pending = code[:-1]
            continue
        pending = ""
        if code.strip():
            statements.append(code.strip())
    return statements


class Module:
    def __init__(self, texts):
        self.public = set()
        self.procedures = {}  # name -> list of dummy argument names
        self.binds = {}  # raw name -> C name
        self.generics = {}  # generic name -> specific names
        self.others = set()  # public names that are types or constants
        for text in texts:
            statements = fortran_statements(text)
            generic = None
            for s in statements:
                low = s.lower()
                m = re.match(r"public\s*::\s*(.*)$", s, re.I)
                if m:
                    self.public.update(n.strip() for n in m.group(1).split(",") if n.strip())
                    continue
                m = re.match(r"interface\s+(\w+)\s*$", s, re.I)
                if m:
                    generic = m.group(1)
                    self.generics.setdefault(generic, [])
                    continue
                if re.match(r"end\s+interface\b", low):
                    generic = None
                    continue
                m = re.match(r"module\s+procedure\s+(.*)$", s, re.I)
                if m and generic:
                    self.generics[generic] += [n.strip() for n in m.group(1).split(",")]
                    continue
                m = re.match(
                    r"(?:(?:pure|elemental|recursive|impure|module)\s+)*"
                    r"(?:(?:integer|real|logical|character|complex|type)\s*(?:\([^)]*\))?\s+)?"
                    r"(function|subroutine)\s+(\w+)\s*\(([^)]*)\)(.*)$", s, re.I)
                if m:
                    name = m.group(2)
                    self.procedures[name] = [a.strip() for a in m.group(3).split(",") if a.strip()]
                    b = re.search(r'bind\s*\(\s*c\s*,\s*name\s*=\s*"(\w+)"', m.group(4), re.I)
                    if b:
                        self.binds[name] = b.group(1)
                    continue
                m = re.match(r"type\s*,\s*(?:bind\s*\(\s*c\s*\)\s*,\s*)?public\s*::\s*(\w+)", s, re.I)
                if m:
                    self.others.add(m.group(1))
                m = re.match(r".*,\s*parameter\s*,\s*public\s*::\s*(\w+)", s, re.I)
                if m:
                    self.others.add(m.group(1))

    def public_procedures(self):
        return {n for n in self.public if n in self.procedures or n in self.generics}

    def forms(self, name):
        """The dummy-argument lists a call of `name` may have."""
        if name in self.generics:
            return [self.procedures.get(s, []) for s in self.generics[name]]
        return [self.procedures.get(name, [])]


def c_functions(header_text):
    """The functions a C header declares (not typedefs, not comments)."""
    names = set()
    for line in header_text.split("\n"):
        if line.startswith(("//", " ", "\t", "#", "typedef", "/*", "*")):
            continue
        m = re.match(r"[A-Za-z_][\w \*]*?\b(zarr_\w+)\(", line)
        if m:
            names.add(m.group(1))
    return names


def entries(reference):
    """{name: text} of the list items starting with **`name`**."""
    found, order = {}, []
    items = re.split(r"\n(?=- \*\*`)", "\n" + reference)
    for item in items:
        m = re.match(r"- \*\*`(\w+)`\*\*", item)
        if m:
            name = m.group(1)
            if name in found:
                found[name] += "\n" + item
                order.append(("duplicate", name))
            else:
                found[name] = item
    return found, [n for kind, n in order if kind == "duplicate"]


def paragraph(reference, lead):
    """The text of the paragraph starting with `lead`, or None."""
    for para in re.split(r"\n\s*\n", reference):
        if para.lstrip().startswith(lead):
            return para
    return None


def main(argv):
    if len(argv) < 5:
        print(__doc__)
        return 2
    md_path, zarr_h, zarr_mpi_h, modules = argv[1], argv[2], argv[3], argv[4:]
    md = open(md_path, encoding="utf-8").read()
    if BEGIN not in md or END not in md:
        print(f"{md_path}: no '{BEGIN}' ... '{END}' section")
        return 1
    reference = md.split(BEGIN, 1)[1].split(END, 1)[0]
    module = Module([open(p, encoding="utf-8").read() for p in modules])
    c_names = c_functions(open(zarr_h, encoding="utf-8").read())
    c_mpi_names = c_functions(open(zarr_mpi_h, encoding="utf-8").read())
    problems = []

    unknown = sorted(module.public - module.public_procedures() - module.others)
    if unknown:
        problems.append("public names that are neither procedures, types nor constants "
                        "(the checker cannot read them): " + ", ".join(unknown))
    public = module.public_procedures()
    fortran_layer = {n for n in public if not n.startswith("c_")}
    raw_layer = {n for n in public if n.startswith("c_")}
    if len(fortran_layer) < 10 or len(raw_layer) < 10:
        problems.append(f"only {len(fortran_layer)} Fortran-layer and {len(raw_layer)} raw "
                        "public procedures found: the modules were not read correctly")

    # The Fortran layer: one entry each, with call forms matching the source.
    documented, duplicates = entries(reference)
    for name in duplicates:
        problems.append(f"{name}: documented more than once")
    missing = sorted(fortran_layer - set(documented))
    if missing:
        problems.append("public procedures not documented in the reference: " + ", ".join(missing))
    stale = sorted(set(documented) - fortran_layer)
    if stale:
        problems.append("documented but not public procedures of the modules: " + ", ".join(stale))
    for name in sorted(fortran_layer & set(documented)):
        # The signature comes first; an example (after "Example:") is not a signature.
        text = documented[name].split("Example:", 1)[0]
        calls = re.findall(r"`(?:[^`(]*?=\s*|call\s+)?" + name + r"\(([^`]*)\)`", text)
        if not calls:
            problems.append(f"{name}: the entry has no call form `{name}(...)`")
            continue
        forms = [set(f) for f in module.forms(name)]
        for args in calls:
            given = set(re.findall(r"[A-Za-z_]\w*", args))
            if given not in forms:
                alternatives = " or ".join(sorted({"(" + ", ".join(f) + ")" for f in module.forms(name)}))
                problems.append(f"{name}: documented as {name}({args}), but its arguments "
                                f"are {alternatives}")

    # The raw layer.
    raw_para = paragraph(reference, "Raw layer:")
    if raw_para is None:
        problems.append("no paragraph starting with 'Raw layer:' in the reference")
        raw_para = ""
    listed = re.findall(r"`(c_\w+)`", raw_para)
    missing = sorted(raw_layer - set(listed))
    if missing:
        problems.append("raw interfaces not listed after 'Raw layer:': " + ", ".join(missing))
    stale = sorted(set(listed) - raw_layer)
    if stale:
        problems.append("listed after 'Raw layer:' but not public in the modules: " + ", ".join(stale))
    stated = dict(re.findall(r"`(c_\w+)`\s*\(binds\s+`(zarr_\w+)`\)", raw_para))
    for name in sorted(raw_layer & set(listed)):
        expected = stated.get(name, name[2:])
        actual = module.binds.get(name)
        if actual != expected:
            problems.append(f"{name}: binds {actual or 'no C function'}, the reference says {expected}")
        elif actual not in c_names and actual not in c_mpi_names:
            problems.append(f"{name}: binds {actual}, which zarr.h and zarr_mpi.h do not declare")

    # The functions of zarr.h without a raw interface.
    bound = set(module.binds.values())
    unbound = c_names - bound
    not_bound = paragraph(reference, "Not bound:")
    if not_bound is None:
        problems.append("no paragraph starting with 'Not bound:' in the reference")
    else:
        said = set(re.findall(r"`(zarr_\w+)`", not_bound))
        if said - unbound:
            problems.append("'Not bound:' lists functions that are bound or not in zarr.h: "
                            + ", ".join(sorted(said - unbound)))
        if unbound - said:
            problems.append("functions of zarr.h without a c_zarr_* interface, missing from "
                            "'Not bound:': " + ", ".join(sorted(unbound - said)))

    if problems:
        print(f"{md_path}: the Fortran reference does not match the modules:")
        for p in problems:
            print("  - " + p)
        return 1
    print(f"{md_path}: {len(fortran_layer)} Fortran-layer procedures and {len(raw_layer)} raw "
          f"interfaces documented; {len(unbound)} functions of zarr.h not bound, as listed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
