#!/usr/bin/env python3
"""Check that the Rust modules import only from the layers below them.

The layers are the rows of the picture under "### Architecture" in README.md: a row
starts with one space, then the modules (top-level names under src/, `/` for folders),
then, after three or more spaces, an optional description; lines indented further only
continue a description. Higher rows come first. A module may import from any row below
its own; two modules of one row may not import each other (a circle). Every top-level
module under src/ must appear in the picture. Imports are the `crate::<module>` paths on
lines that are not comments. The one deliberate loop (the codec chain holds sharding,
which holds a chain) lies inside `codec` and is not a cross-module import.

Usage: check_layers.py README.md SRC_DIR; exit status 1 with the offending imports listed.
"""
import os
import re
import sys


def layers(readme):
    text = open(readme, encoding="utf-8").read()
    section = text.split("### Architecture", 1)[1]
    block = section.split("```", 2)[1]
    rows = []
    for line in block.splitlines():
        if not line.startswith(" ") or line.startswith("  "):
            continue
        names = re.split(r" {3,}", line.strip(), maxsplit=1)[0]
        rows.append([n.rstrip("/") for n in names.split()])
    return {module: level for level, row in enumerate(rows) for module in row}


def imports(src):
    found = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            module = os.path.relpath(path, src).split(os.sep)[0].removesuffix(".rs")
            if module == "lib":
                continue
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                if line.strip().startswith("//"):
                    continue
                for used in re.findall(r"crate::([a-z_0-9]+)", line):
                    if used != module:
                        found.setdefault(module, {}).setdefault(used, f"{path}:{number}")
    return found


def main(readme, src):
    level = layers(readme)
    found = imports(src)
    problems = []
    modules = {m for m in found} | {u for uses in found.values() for u in uses}
    for module in sorted(modules - set(level)):
        problems.append(f"{module}: not in the README's architecture picture")
    for module, uses in sorted(found.items()):
        for used, where in sorted(uses.items()):
            if module not in level or used not in level:
                continue
            if level[used] < level[module]:
                problems.append(f"{where}: {module} imports {used}, a layer above it")
            elif level[used] == level[module] and module in found.get(used, {}):
                problems.append(f"{where}: {module} and {used} (one layer) import each other")
    for problem in problems:
        print(problem)
    print(f"check_layers: {len(level)} modules in {max(level.values()) + 1} layers, "
          f"{sum(len(u) for u in found.values())} module imports, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
