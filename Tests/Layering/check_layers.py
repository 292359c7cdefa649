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


def allowed_arrows(root=REPO):
    """module -> set of modules it may depend on, from the table in docs/ARCHITECTURE.md."""
    text = (root / "docs" / "ARCHITECTURE.md").read_text()
    table = text.split("<!-- layers", 1)[1]
    arrows = {}
    for line in table.splitlines()[1:]:
        if not line.startswith("|"):
            if arrows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in ("module", "---") or set(cells[0]) <= {"-"}:
            continue
        arrows[cells[0]] = {d.strip() for d in cells[3].split(",") if d.strip()}
    return arrows


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
    problems = []
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
