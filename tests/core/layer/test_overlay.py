"""Whether a layer works here: the probe, and the direct mode a session falls back to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.layer import overlay
from ljtui.core.layer.scan import CREATE, LayerEntry, Side
from ljtui.core.layer.service import DIRECT, DIRECT_WORDS, LAYERED, OLD_UPPER, Layer, LayerUnavailable
from tests.core.layer.helpers import layer_of, tree_of


def test_a_probe_that_fails_makes_the_session_direct(git_repo: Path) -> None:
    layer = Layer(git_repo, probe=lambda *args: "user namespaces are off")
    status = layer.status
    assert (status.mode, status.layered, status.bwrap) == (DIRECT, False, None)
    assert status.why == "no layer here: user namespaces are off"
    assert status.label == DIRECT_WORDS
    with pytest.raises(LayerUnavailable, match="^no layer here: user namespaces are off$"):
        layer.mount_args()


def test_the_probe_is_asked_once_with_the_program_and_the_repository(git_repo: Path) -> None:
    asked = []

    def probe(bwrap: str | None, repo: Path, scratch: Path) -> str | None:
        asked.append((bwrap, repo, scratch))
        return "no"

    layer = Layer(git_repo, bwrap=lambda: "/opt/bwrap", probe=probe)
    assert layer.known_status is None
    assert layer.status is layer.status
    assert asked == [("/opt/bwrap", Path(os.path.realpath(git_repo)), layer.place.folder.parent / ".probes")]
    assert layer.known_status is layer.status


def test_the_setting_off_makes_the_session_direct_without_probing(git_repo: Path) -> None:
    def probe(*args: object) -> str | None:
        raise AssertionError("probed")

    layer = Layer(git_repo, "off", probe=probe)
    assert layer.status.mode == DIRECT
    assert layer.status.why == "agent.layer is 'off' in your config"
    with pytest.raises(LayerUnavailable, match="agent.layer is 'off'"):
        layer.mount_args()


def test_no_bwrap_makes_the_session_direct(git_repo: Path) -> None:
    layer = Layer(git_repo, bwrap=lambda: None)
    assert layer.status.mode == DIRECT
    assert layer.status.why == "no layer here: bubblewrap (bwrap) is not installed"


def test_a_direct_layer_cannot_be_rebuilt_and_stays_as_it_was(git_repo: Path) -> None:
    layer = Layer(git_repo, "off")
    entry = LayerEntry("new.txt", CREATE, Side(), Side(b"x\n"))
    with layer.holding():
        (layer.place.upper / "new.txt").write_text("x\n")
        with pytest.raises(LayerUnavailable):
            layer.keep_only([entry])
        assert (layer.place.upper / "new.txt").read_text() == "x\n"
        assert not (layer.place.folder / OLD_UPPER).exists()


def test_the_probe_mounts_a_real_overlay_and_leaves_nothing(git_repo: Path, tmp_path: Path) -> None:
    layer = layer_of(git_repo)
    assert layer.status.mode == LAYERED and layer.status.bwrap == overlay.find_bwrap()
    before = tree_of(git_repo)
    scratch = tmp_path / "scratch"
    assert overlay.probe(overlay.find_bwrap(), git_repo, scratch) is None
    assert tree_of(git_repo) == before
    assert not (git_repo / overlay.PROBE_NAME).exists()
    assert os.listdir(scratch) == []
    probes = layer.place.folder.parent / ".probes"  # where the layer's own probe ran
    assert not probes.exists() or os.listdir(probes) == []


@pytest.mark.parametrize(("bwrap", "says"), [
    (None, "bubblewrap (bwrap) is not installed"),
    ("/nonexistent/bwrap", "/nonexistent/bwrap could not run: "),
    ("/bin/false", "an overlay cannot be mounted here: exit 1"),
    ("/bin/true", "a write in the overlay did not land in its upper folder"),
])
def test_a_probe_that_cannot_work_says_why(git_repo: Path, tmp_path: Path, bwrap: str | None, says: str) -> None:
    before = tree_of(git_repo)
    scratch = tmp_path / "scratch"
    why = overlay.probe(bwrap, git_repo, scratch)
    assert why is not None and why.startswith(says)
    assert tree_of(git_repo) == before
    assert not scratch.exists() or os.listdir(scratch) == []


def test_a_broken_bwrap_says_its_last_words(git_repo: Path, tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    assert overlay.probe(str(fake), git_repo, tmp_path / "scratch") == (
        "an overlay cannot be mounted here: bwrap: setting up uid map: Permission denied")


def test_git_and_agent_are_bound_read_only_when_the_tree_has_them(git_repo: Path, tmp_path: Path) -> None:
    upper, work = tmp_path / "u", tmp_path / "w"
    args = overlay.overlay_args(git_repo, upper, work)
    assert args[:6] == ["--overlay-src", str(git_repo), "--overlay", str(upper), str(work), str(git_repo)]
    assert args[6:] == ["--ro-bind", str(git_repo / ".git"), str(git_repo / ".git")]
    (git_repo / ".agent").mkdir()
    assert overlay.overlay_args(git_repo, upper, work)[-3:] == ["--ro-bind", str(git_repo / ".agent"),
                                                                str(git_repo / ".agent")]
