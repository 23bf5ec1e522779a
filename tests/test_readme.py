"""The README shows the app as it is: its images are the snapshot tests' and it calls nothing missing."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from ljtui.tui.screens.main import PANES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")
MISSING = re.compile(
    r"placeholder|not (?:built|implemented|supported|available|done) yet|not yet (?:built|implemented|supported)"
    r"|coming soon|\bTODO\b|\bTBD\b|\bWIP\b|to be (?:built|implemented)",
    re.IGNORECASE,
)


def load_images() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_images", ROOT / "docs" / "images.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


images = load_images()


@pytest.mark.parametrize("name", sorted(images.SOURCES))
def test_each_readme_image_is_its_snapshot_test_s_picture(name: str) -> None:
    source = images.snapshot(name)
    assert source.is_file(), f"{name} comes from {source}, which no snapshot test writes"
    copy = images.IMAGES / name
    assert copy.read_bytes() == source.read_bytes(), f"docs/images/{name} is older than its snapshot: run python docs/images.py"


def test_the_readme_shows_only_images_made_from_snapshots() -> None:
    shown = IMAGE.findall(README)
    assert shown, "the README shows no image"
    for path in shown:
        assert path.startswith("docs/images/") and Path(path).name in images.SOURCES, f"{path} is not made from a snapshot"
    assert {Path(p).name for p in shown} == set(images.SOURCES), "an image is made that the README does not show"
    assert sorted(p.name for p in images.IMAGES.glob("*.svg")) == sorted(images.SOURCES)


def test_the_readme_names_no_feature_as_missing() -> None:
    found = [m.group(0) for m in MISSING.finditer(README)]
    assert not found, f"the README says something is missing: {found}"


def test_the_missing_words_check_can_fail() -> None:
    assert MISSING.search("The Gates pane is a placeholder (delivery gates are not built yet).")
    assert MISSING.search("MCP support is coming soon")
    assert not MISSING.search("The Gates pane shows the active delivery gate.")


def test_the_readme_describes_every_pane_the_app_has() -> None:
    panes = section("The panes:", "The status bar")
    described = set(re.findall(r"^\* \*\*(\w+)\*\* —", panes, re.MULTILINE))
    assert described == {title for pane, title in PANES.items() if pane != "prompt"}


def section(start: str, end: str) -> str:
    assert start in README and end in README
    return README.split(start, 1)[1].split(end, 1)[0]
