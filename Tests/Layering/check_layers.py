#!/usr/bin/env python3
"""Checks the module layering that docs/ARCHITECTURE.md documents: every dependency in
Package.swift must be allowed by the table there, and every `import` in a module's sources must
be a dependency Package.swift declares (so the arrows in Package.swift are the real ones).
Prints each violation and exits 1; exits 0 when the layering holds."""
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
SYSTEM = {"Glibc", "Darwin", "Foundation", "Synchronization", "XCTest", "PackagePlugin"}


def layer_table(root=REPO):
    """The order of the layers, bottom up, and module -> (layer, the "may depend on" cell), from
    docs/ARCHITECTURE.md."""
    text = (root / "docs" / "ARCHITECTURE.md").read_text()
    order = [layer.strip() for layer in re.search(r"<!-- layer order: (.*?) -->", text).group(1).split("<")]
    table = text.split("<!-- layers", 1)[1]
    rows = {}
    for line in table.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in ("module", "---") or set(cells[0]) <= {"-"}:
            continue
        rows[cells[0]] = (cells[1], [d.strip() for d in cells[3].split(",") if d.strip()])
    return order, rows


def allowed_arrows(root=REPO):
    """module -> set of modules it may depend on: those its row names, "any LAYER" standing for
    every module of that layer (the dispatcher may use any command, so a new command adds only
    its own row)."""
    _, rows = layer_table(root)
    arrows = {}
    for name, (_, cell) in rows.items():
        arrows[name] = set()
        for entry in cell:
            if entry.startswith("any "):
                arrows[name] |= {module for module, (layer, _) in rows.items() if layer == entry[4:]}
            else:
                arrows[name].add(entry)
    return arrows


def downward_problems(root=REPO):
    """Every arrow of the table must point to a lower layer (the layers' order is the comment
    `layer order` in docs/ARCHITECTURE.md), so the rules hold for a row added later too."""
    order, rows = layer_table(root)
    rank = {layer: index for index, group in enumerate(order) for layer in map(str.strip, group.split("="))}
    problems = []
    for name, targets in allowed_arrows(root).items():
        layer = rows[name][0].strip()
        for target in sorted(targets):
            if target not in rows:
                problems.append(f"{name} -> {target}: not a module of the table")
            elif rank[rows[target][0]] >= rank[layer]:
                problems.append(f"{name} -> {target}: the table lets the {layer} layer use the {rows[target][0]} layer, which is not below it")
    return problems


def package_targets(root=REPO):
    """target -> (source folder, declared dependencies), from Package.swift."""
    text = (root / "Package.swift").read_text()
    targets = {}
    for match in re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*\"([^\"]+)\"(.*?)\)(?=,\s*\n|\s*\n\s*\])", text, re.S):
        kind, name, rest = match.groups()
        deps = re.search(r"dependencies:\s*\[(.*?)\]", rest, re.S)
        path = re.search(r"path:\s*\"([^\"]+)\"", rest)
        folder = path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name
        targets[name] = (folder, set(re.findall(r"\"([^\"]+)\"", deps.group(1))) if deps else set(), kind)
    return targets


def imports(folder, root=REPO):
    found = set()
    for source in (root / folder).rglob("*.swift"):
        for line in source.read_text().splitlines():
            match = re.match(r"\s*(?:@testable\s+)?import\s+(\w+)", line)
            if match:
                found.add(match.group(1))
    return found


def violations(root=REPO):
    arrows = allowed_arrows(root)
    problems = downward_problems(root)
    for name, (folder, deps, kind) in package_targets(root).items():
        if kind != "testTarget":
            if name not in arrows:
                problems.append(f"{name}: not in the table of docs/ARCHITECTURE.md")
                continue
            for dep in sorted(deps - arrows[name]):
                problems.append(f"{name} -> {dep}: Package.swift declares an arrow the layering does not allow")
        if kind == "systemLibrary":
            continue
        for module in sorted(imports(folder, root) - deps - SYSTEM):
            problems.append(f"{name} imports {module}, which Package.swift does not declare as its dependency")
    return problems


if __name__ == "__main__":
    found = violations()
    for problem in found:
        print(problem)
    print("layering: " + ("OK" if not found else f"{len(found)} violation(s)"))
    sys.exit(1 if found else 0)
