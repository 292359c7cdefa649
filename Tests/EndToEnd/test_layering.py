"""The module layering of docs/ARCHITECTURE.md holds (Tests/Layering/check_layers.py), and the
checker does catch a broken arrow."""
import shutil
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "Tests" / "Layering"))
import check_layers  # noqa: E402


def test_the_layering_holds():
    assert check_layers.violations() == []
    assert len(check_layers.package_targets()) >= 20  # every target was found in Package.swift


def _copy(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO / "Sources", root / "Sources")
    shutil.copytree(REPO / "Tests" / "GeoTests", root / "Tests" / "GeoTests")
    shutil.copytree(REPO / "docs", root / "docs")
    shutil.copy(REPO / "Package.swift", root)
    return root


def test_an_undeclared_import_is_caught(tmp_path):
    root = _copy(tmp_path)
    source = root / "Sources" / "Records" / "StreamRunner.swift"
    source.write_text("import GeoCommandLine\n" + source.read_text())
    assert check_layers.violations(root) == [
        "Records imports GeoCommandLine, which Package.swift does not declare as its dependency"]


def test_an_arrow_the_table_does_not_allow_is_caught(tmp_path):
    root = _copy(tmp_path)
    package = root / "Package.swift"
    text = package.read_text()
    text = text.replace('.target(name: "EncodeCommand", dependencies: ["CommandKit",',
                        '.target(name: "EncodeCommand", dependencies: ["Geodesy", "CommandKit",')
    package.write_text(text)
    assert check_layers.violations(root) == [
        "EncodeCommand -> Geodesy: Package.swift declares an arrow the layering does not allow"]


def test_a_row_that_lets_a_layer_use_one_above_it_is_caught(tmp_path):
    root = _copy(tmp_path)
    doc = root / "docs" / "ARCHITECTURE.md"
    # The Records row, whatever it allows today, made to allow every command as well.
    text = doc.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| Records |"))
    doc.write_text(text.replace(row, row.rstrip(" |") + ", any command |"))
    problems = check_layers.violations(root)
    assert "Records -> EncodeCommand: the table lets the engine layer use the command layer, which is not below it" in problems


def test_any_layer_stands_for_every_module_of_it():
    arrows = check_layers.allowed_arrows()
    commands = {name for name, (layer, _) in check_layers.layer_table()[1].items() if layer == "command"}
    assert {"EncodeCommand", "RenderCommand"} <= commands <= arrows["GeoDispatcher"]
