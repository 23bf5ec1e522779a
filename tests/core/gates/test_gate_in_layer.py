"""A gate that stages runs its checks in the layer, at the repository's own path.

The case that broke the staging copy: a src-layout package installed in
editable mode (its path file names the repository's ``src``). A check run in
a staging copy at another path imports the user's tree, so a change that
breaks ``src/`` passed there. In the layer the check imports the changed
sources: the broken change fails, the correct one passes and is delivered
through the layer's review, and nothing reaches the tree before that.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Notice
from ljtui.core.gates.runs import list_runs
from ljtui.core.layer.service import Layer
from ljtui.core.ports import ListSink
from tests.conftest import git
from tests.core.gates.scripted import L2_FACTORS, call, tool_results

PACKAGE = "def top(words):\n    return sorted(words)[:1]\n"
BROKEN = "def top(words):\n    return None\n"
TOP_N = "def top(words, n=1):\n    return sorted(words)[:n]\n"
TEST = """import unittest

import wordy


class TopTest(unittest.TestCase):
    def test_top(self):
        self.assertEqual(wordy.top(["b", "a"]), ["a"])
"""
TEST_N = TEST + """
    def test_top_n(self):
        self.assertEqual(wordy.top(["c", "b", "a"], n=2), ["a", "b"])
"""
CHECK = {"id": "tests", "description": "the package's tests pass",
         "command": "python -m unittest discover -s tests -q"}
GATE = "top-words"
START = [call("gate_propose", title="Top words", items=[CHECK], factors=L2_FACTORS),
         call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE)]
YES = {"gate_confirm": ["yes"], "gate_start": ["yes"], "apply": ["yes"], "playbook_offer": ["no"]}


@pytest.fixture
def editable(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A src-layout package ``wordy`` with its tests, installed in editable mode the way setuptools does it (a path
    file naming ``<repo>/src``) into a virtual environment beside the repository, which is activated (first on
    ``PATH``)."""
    repo = git_repo
    venv = repo.parent / "venv"
    (repo / "src" / "wordy").mkdir(parents=True)
    (repo / "src" / "wordy" / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_wordy.py").write_text(TEST, encoding="utf-8")
    (repo / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "wordy")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    relative = Path(sysconfig.get_path("purelib")).relative_to(sysconfig.get_path("data"))
    (venv / relative / "__editable__.wordy-0.1.pth").write_text(f"{repo / 'src'}\n", encoding="utf-8")
    monkeypatch.setenv("PATH", f"{venv / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    found = subprocess.run(["python", "-c", "import wordy; print(wordy.__file__)"],
                           capture_output=True, text=True, check=True, cwd="/")
    assert found.stdout.strip() == str(repo / "src" / "wordy" / "__init__.py")  # the install imports the tree
    return repo


def engine(repo: Path, turns: list[dict[str, Any]], layer: str) -> tuple[Engine, ListSink, ScriptedApprover]:
    script = repo.parent / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": turns}), encoding="utf-8")
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script)
    config.agent.allow_tools = ["edit_file", "write_file"]
    config.agent.layer = layer
    sink = ListSink()
    approver = ScriptedApprover({kind: list(queue) for kind, queue in YES.items()})
    return Engine(config, sink, repo_root=repo, approver=approver), sink, approver


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return call("edit_file", path=path, old=old, new=new)


BREAK = edit("src/wordy/__init__.py", "    return sorted(words)[:1]\n", "    return None\n")


def layered_here(repo: Path) -> None:
    status = Layer(repo).status
    if not status.layered:
        pytest.skip(f"no layer on this machine: {status.why}")


async def test_in_the_layer_a_change_that_breaks_src_fails_its_check_and_never_reaches_the_tree(
        editable: Path, layered: Path) -> None:
    layered_here(editable)
    turns = [*START, BREAK, call("gate_check", item="tests"), call("gate_deliver"), {"text": "done"}]
    eng, sink, approver = engine(editable, turns, "auto")
    await eng.run_turn("make top return nothing")
    [started] = tool_results(sink, "gate_start")
    assert started.ok and "layer" in started.output, started.output
    confirm, start = approver.asked[:2]
    assert "Checks run in the layer (bubblewrap): what they change lands in the layer, never in your files; " \
           "network: off." in confirm.lines, confirm.lines
    assert any("stays in the layer over your repository" in line for line in start.lines), start.lines
    [check] = tool_results(sink, "gate_check")
    assert "tests: exit 1" in check.output or "exit 1" in check.output, check.output
    [deliver] = tool_results(sink, "gate_deliver")
    assert not deliver.ok and "Delivery refused: gate top-words" in deliver.output, deliver.output
    assert (editable / "src" / "wordy" / "__init__.py").read_text(encoding="utf-8") == PACKAGE
    assert not (editable / ".agent" / "workspace").exists() or not any(
        (editable / ".agent" / "workspace").glob("*/tree"))  # no staging copy was made
    [run], _ = list_runs(editable)
    assert run.in_layer and not run.delivered and run.evidence[-1].exit_code == 1
    assert run.evidence[-1].content_hash.startswith("layer:")
    assert eng.review.origin is None  # the turn's end does not offer a change the gate holds back
    assert any(isinstance(e, Notice) and "Delivery refused: gate top-words" in e.message
               and "waits in the layer" in e.message for e in sink.events)
    assert await eng.review_layer()  # /diff shows it; its apply is refused while the gate has not passed
    await eng.review.apply()
    assert "apply" not in [r.kind for r in approver.asked]
    assert (editable / "src" / "wordy" / "__init__.py").read_text(encoding="utf-8") == PACKAGE
    assert eng.review.origin == "the layer"


async def test_a_staging_copy_at_another_path_passes_the_same_broken_change(editable: Path) -> None:
    """The control: without the layer the check runs in a copy whose editable install imports the user's tree."""
    turns = [*START, BREAK, call("gate_check", item="tests"), {"text": "done"}]
    eng, sink, _ = engine(editable, turns, "off")
    await eng.run_turn("make top return nothing")
    [check] = tool_results(sink, "gate_check")
    [run], _ = list_runs(editable)
    assert not run.in_layer and run.evidence[-1].exit_code == 0, check.output  # false evidence
    staged = eng.gates.staging_root()
    assert staged is not None and (staged / "src" / "wordy" / "__init__.py").read_text(encoding="utf-8") == BROKEN


async def test_in_the_layer_a_correct_change_passes_and_is_delivered_through_the_layers_review(
        editable: Path, layered: Path) -> None:
    layered_here(editable)
    turns = [*START, edit("src/wordy/__init__.py", PACKAGE, TOP_N),
             edit("tests/test_wordy.py", TEST, TEST_N), call("gate_check", item="tests"),
             call("gate_finish", outcome="pass"), {"text": "done"}]
    eng, sink, approver = engine(editable, turns, "auto")
    await eng.run_turn("let top take n")
    [check] = tool_results(sink, "gate_check")
    [finish] = tool_results(sink, "gate_finish")
    assert finish.ok and "delivered gate top-words" in finish.output, (check.output, finish.output)
    assert [r.kind for r in approver.asked] == ["gate_confirm", "gate_start", "apply", "playbook_offer"]
    assert (editable / "src" / "wordy" / "__init__.py").read_text(encoding="utf-8") == TOP_N
    assert (editable / "tests" / "test_wordy.py").read_text(encoding="utf-8") == TEST_N
    [run], _ = list_runs(editable)
    assert run.in_layer and run.delivered and run.outcome == "pass"
    layer = Layer(editable)
    with layer.holding():
        assert layer.change().reviewed() == ()  # delivered: nothing of it waits in the layer
    assert eng.review.origin is None


def cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args, "--repo", str(repo)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"})


async def test_no_door_takes_the_held_change_until_the_run_ends(editable: Path, layered: Path) -> None:
    """``ljtui layer apply`` meets the same refusal as the Diff pane; once the user ends the run without delivery,
    the change is theirs to take or drop."""
    layered_here(editable)
    turns = [*START, BREAK, call("gate_check", item="tests"), {"text": "done"}]
    eng, sink, _ = engine(editable, turns, "auto")
    await eng.run_turn("make top return nothing")
    await eng.aclose()
    refused = cli(editable, "layer", "apply", "--yes")
    assert refused.returncode == 2, refused.stderr
    assert "nothing was applied: gate top-words's run" in refused.stderr and "has not passed" in refused.stderr
    assert "has not passed: failed: tests (the package's tests pass)" in refused.stderr, refused.stderr
    assert (editable / "src" / "wordy" / "__init__.py").read_text(encoding="utf-8") == PACKAGE
    ended = cli(editable, "gates", "discard", GATE)
    assert ended.returncode == 0, ended.stderr
    assert "Its change stays in the layer for your review" in ended.stderr + ended.stdout
    shown = cli(editable, "layer", "diff")
    assert "-    return sorted(words)[:1]\n+    return None" in shown.stdout
    taken = cli(editable, "layer", "apply", "--yes")
    assert taken.returncode == 0, taken.stderr
    assert (editable / "src" / "wordy" / "__init__.py").read_text(encoding="utf-8") == BROKEN


def test_the_layers_hash_follows_what_it_would_deliver_and_not_the_caches_a_check_writes() -> None:
    from ljtui.core.gates.layer_run import layer_hash
    from ljtui.core.layer.scan import CREATE, DELETE, MODIFY, LayerChange, LayerEntry, Side

    edited = LayerEntry("src/a.py", MODIFY, Side(b"A = 1\n"), Side(b"A = 2\n"))
    gone = LayerEntry("src/b.py", DELETE, Side(b"B = 2\n"), Side())
    cache = LayerEntry("src/__pycache__/a.cpython-311.pyc", CREATE, Side(), Side(b"\0pyc"), ignored=True)
    base = layer_hash(LayerChange((edited, gone)))
    assert base.startswith("layer:") and base == layer_hash(LayerChange((gone, edited)))
    assert layer_hash(LayerChange((edited, gone, cache))) == base  # a check's own caches never make it stale
    assert layer_hash(LayerChange((LayerEntry("src/a.py", MODIFY, Side(b"A = 1\n"), Side(b"A = 3\n")), gone))) != base
    assert layer_hash(LayerChange((LayerEntry("src/a.py", MODIFY, Side(b"A = 1\n"), Side(b"A = 2\n", 0o755)),
                                   gone))) != base
    assert layer_hash(LayerChange((edited,))) != base
    assert layer_hash(LayerChange((edited, gone), held=((".git", "made by a command"),))) != base


def test_a_run_file_whose_in_layer_is_not_true_or_false_is_refused(git_repo: Path) -> None:
    import json

    from ljtui.core.gates.runs import GateRun, RunFileError, load_run, new_run_id, save_run

    run = GateRun(GATE, new_run_id(), 1.0, "chat", 2, True, in_layer=True)
    save_run(git_repo, run)
    assert load_run(git_repo, run.run_id).in_layer
    path = git_repo / ".agent" / "workspace" / run.run_id / "run.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["in_layer"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert not load_run(git_repo, run.run_id).in_layer  # a run written before: a staging tree of its own
    data["in_layer"] = "yes"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RunFileError, match="field 'in_layer' must be true or false"):
        load_run(git_repo, run.run_id)


def test_a_headless_run_says_where_a_started_gates_writes_go() -> None:
    from ljtui.cli.cmd_gates import gate_event_line
    from ljtui.core.gates.events import GateStarted

    assert gate_event_line(GateStarted(GATE, "r1", 2, True, True)) == \
        "gate top-words started (run r1): writes are held in the layer"
    assert gate_event_line(GateStarted(GATE, "r1", 2, True)) == "gate top-words started (run r1): writes are staged"
    assert gate_event_line(GateStarted(GATE, "r1", 1, False)) == "gate top-words started (run r1)"


async def test_a_guard_that_cannot_read_its_gate_never_lets_the_held_change_through(editable: Path,
                                                                                    layered: Path) -> None:
    layered_here(editable)
    turns = [*START, BREAK, call("gate_check", item="tests"), {"text": "done"}]
    eng, sink, approver = engine(editable, turns, "auto")
    await eng.run_turn("make top return nothing")
    (editable / ".agent" / "gates" / f"{GATE}.md").write_text("not a gate\n", encoding="utf-8")  # now malformed
    assert await eng.review_layer()
    await eng.review.apply()
    assert "apply" not in [r.kind for r in approver.asked]
    assert any(isinstance(e, Notice) and f"Gate {GATE}'s guard failed" in e.message for e in sink.events)
    await eng.aclose()
    refused = cli(editable, "layer", "apply", "--yes")
    assert refused.returncode == 2, refused.stderr
    assert "holds this layer, and its guard failed" in refused.stderr
    assert f"`ljtui gates discard {GATE}` ends the run" in refused.stderr
    assert (editable / "src" / "wordy" / "__init__.py").read_text(encoding="utf-8") == PACKAGE
