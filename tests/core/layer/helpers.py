"""Real repositories and real overlays for the layer tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping

import pytest

from ljtui.core.layer.scan import LayerChange
from ljtui.core.layer.service import Layer
from tests.conftest import git
from tests.core.layer import tree_view
from tests.core.layer.tree_view import Listing

COMMAND_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}
"""The environment of every command run in a layer (English messages, no user's git config)."""
TIMEOUT_SECONDS = 30


def add_files(repo: Path, files: Mapping[str, str | bytes], *, executable: tuple[str, ...] = (),
              commit: bool = True) -> Path:
    """Write ``files`` into ``repo`` (``executable``: made 0o755, the rest 0o644) and commit them."""
    for rel, content in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        os.chmod(path, 0o755 if rel in executable else 0o644)
    if commit:
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "files")
    return repo


def layer_of(repo: Path) -> Layer:
    """``repo``'s layer; the test is skipped when overlays do not work on this machine."""
    layer = Layer(repo)
    if not layer.status.layered:
        pytest.skip(f"no overlay on this machine: {layer.status.why}")
    return layer


def run_in(layer: Layer, script: str, *, record: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``/bin/sh`` in the layer, in the repository, then record the layer's stamps."""
    with layer.holding():
        argv = [layer.status.bwrap, *layer.mount_args(), "--unshare-net", "--chdir", str(layer.repo), "--",
                "/bin/sh", "-c", script]
        done = subprocess.run(argv, capture_output=True, text=True, env=COMMAND_ENV, timeout=TIMEOUT_SECONDS,
                              stdin=subprocess.DEVNULL)
        if record:
            layer.record()
    return done


def run_ok(layer: Layer, script: str) -> subprocess.CompletedProcess[str]:
    """:func:`run_in`, asserting the script succeeded."""
    done = run_in(layer, script)
    assert done.returncode == 0, done.stderr
    return done


def change_of(layer: Layer) -> LayerChange:
    """The layer's change, read while holding it."""
    with layer.holding():
        return layer.change()


def layer_view(layer: Layer) -> Listing:
    """What a command in the layer sees of the repository (``.git`` and ``.agent`` left out)."""
    with layer.holding():
        argv = [layer.status.bwrap, *layer.mount_args(), "--unshare-net", "--chdir", "/", "--",
                os.path.realpath(sys.executable), "-I", "-S", "-B", tree_view.__file__, str(layer.repo),
                ".git", ".agent"]
        done = subprocess.run(argv, capture_output=True, text=True, env=COMMAND_ENV, timeout=TIMEOUT_SECONDS,
                              stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def tree_of(root: Path, *skip: str) -> Listing:
    """Every entry below ``root`` as this process sees it (``skip``: top-level names left out)."""
    return tree_view.listing(root, skip)


def files_of(view: Listing) -> dict[str, tuple[str, str, bool]]:
    """The files and links of a listing, each with its content and whether it is executable."""
    return {rel: (kind, content, bool(mode & 0o111)) for rel, (kind, content, mode) in view.items() if kind != "dir"}


def kinds(change: LayerChange) -> dict[str, str]:
    """``{path: kind}`` of a change's entries."""
    return {e.path: e.kind for e in change.entries}
