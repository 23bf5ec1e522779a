"""Every ``ljtui`` command that works in a repository refuses ``/``, the home folder and a folder holding ljtui's
own config, through the real entry point, before anything starts; a plain folder given with ``--repo`` works;
``ljtui doctor`` names the write paths left out and the folders commands never write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.edits.validate import FileChange
from tests.cli.test_doctor import repository_place
from tests.conftest import git
from tests.core.edits.helpers import interrupted_transaction
from tests.fixtures import SCRIPTS

SUBPROCESS_TIMEOUT = 60
HOME_REFUSED = "is your home folder: ljtui does not work there, because the commands it runs could change"


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """``home`` (the child's ``$HOME``), ``shared`` (holding the child's config folder) and ``project``."""
    made = {name: tmp_path / name for name in ("home", "shared", "project")}
    for folder in made.values():
        folder.mkdir()
    made["config"] = made["shared"] / "xdg" / "ljtui"
    return made


def child_env(places: dict[str, Path]) -> dict[str, str]:
    return {**os.environ, "HOME": str(places["home"]), "XDG_CONFIG_HOME": str(places["shared"] / "xdg")}


def ljtui(places: dict[str, Path], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, env=child_env(places), timeout=SUBPROCESS_TIMEOUT)


def write_script(path: Path, command: str) -> Path:
    path.write_text("turns:\n  - text: \"Writing.\"\n    tool_calls:\n      - name: bash\n"
                    f"        input: {{command: {json.dumps(command)}}}\n  - text: \"Done.\"\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("where", "why"), [
    ("home", HOME_REFUSED),
    ("shared", "holds ljtui's config folder ({config}): ljtui does not work there"),
    ("/", "is the root of the file system: ljtui does not work there"),
], ids=["home", "holding-config", "file-system-root"])
def test_run_refuses_the_home_folder_a_folder_holding_the_config_and_the_root(
        places: dict[str, Path], tmp_path: Path, where: str, why: str) -> None:
    root = Path("/") if where == "/" else places[where]
    script = write_script(tmp_path / "attack.yaml", f"mkdir -p {places['config']} && echo 'agent: {{}}' > "
                                                    f"{places['config']}/config.yaml")
    done = ljtui(places, "run", "rewrite the config", "--script", str(script), "--allow", "bash", "--yes",
                 "--repo", str(root))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"ljtui run: {root} {why.format(config=places['config'])}")
    assert done.stderr.endswith("; work in a project folder instead\n") and done.stderr.count("\n") == 1
    assert not places["config"].exists() and list(places["home"].iterdir()) == []


def test_run_names_the_folder_asked_for_when_the_repository_above_it_is_the_home_folder(
        places: dict[str, Path]) -> None:
    git(places["home"], "init", "-q")  # dotfiles kept in git: every folder below belongs to this repository
    notes = places["home"] / "notes"
    notes.mkdir()
    done = ljtui(places, "run", "hello", "--script", str(SCRIPTS / "hello.yaml"), "--repo", str(notes))
    assert done.returncode == 2
    assert done.stderr.startswith(f"ljtui run: {notes} is in the repository at {places['home']}, which {HOME_REFUSED}")


def test_run_in_a_plain_folder_given_with_repo_works_and_its_commands_write_there(
        places: dict[str, Path], tmp_path: Path) -> None:
    script = write_script(tmp_path / "note.yaml", "echo made > note.txt")
    done = ljtui(places, "run", "write a note", "--script", str(script), "--allow", "bash", "--yes", "--chat",
                 "--repo", str(places["project"]))
    assert done.returncode == 0, done.stderr
    assert "Done." in done.stdout and (places["project"] / "note.txt").read_text() == "made\n"


@pytest.mark.parametrize("argv", [
    [], ["sessions"], ["stats"], ["mcp", "list"], ["gates", "list"], ["playbook", "list"], ["undo", "--yes"],
    ["recover"], ["apply", "PLAN"], ["review", "PLAN"], ["trust", "--yes"], ["acp", "--repo", "."],
    ["plan", "--source", ".", "--request", "x", "--out", "OUT", "--script", str(SCRIPTS / "hello.yaml")],
], ids=lambda argv: argv[0] if argv else "app")
def test_every_command_refuses_the_home_folder_before_it_starts(places: dict[str, Path], tmp_path: Path,
                                                                argv: list[str]) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text("### EDIT a.txt\nOLD:\n```\nx\n```\nNEW:\n```\ny\n```\n", encoding="utf-8")
    argv = [str(plan) if a == "PLAN" else str(tmp_path / "out.md") if a == "OUT" else a for a in argv]
    done = ljtui(places, *argv, cwd=places["home"])
    prog = "ljtui " + argv[0] if argv else "ljtui"
    assert done.returncode == 2, done.stderr
    assert f"{prog}: {places['home']} {HOME_REFUSED}" in done.stderr
    assert list(places["home"].iterdir()) == [], "nothing was written in the refused folder"


def test_a_journal_left_in_the_home_folder_is_never_replayed_there(places: dict[str, Path]) -> None:
    bashrc = places["home"] / ".bashrc"
    bashrc.write_bytes(b"journalled bytes\n")
    interrupted_transaction(places["home"], [FileChange(".bashrc", bashrc, b"journalled bytes\n", b"yours\n")])
    done = ljtui(places, "sessions", cwd=places["home"])
    assert done.returncode == 2 and "recovered" not in done.stderr
    assert bashrc.read_bytes() == b"yours\n"


def test_trust_revoke_still_works_in_the_home_folder(places: dict[str, Path]) -> None:
    done = ljtui(places, "trust", "--revoke", cwd=places["home"])
    assert done.returncode == 0 and done.stdout == f"{places['home']} was not trusted\n"


def test_doctor_shows_a_write_path_holding_the_config_left_out_and_what_is_never_writable(
        places: dict[str, Path]) -> None:
    places["config"].mkdir(parents=True)
    (places["config"] / "config.yaml").write_text(
        f"agent:\n  sandbox:\n    write_paths: [{places['shared']}, {places['home']}]\n", encoding="utf-8")
    (places["project"] / ".git").mkdir()
    report = json.loads(ljtui(places, "doctor", "--json", "--repo", str(places["project"])).stdout)
    box = report["sandbox"]
    assert box["refused_write_paths"] == [
        {"entry": str(places["shared"]), "why": f"holds ljtui's config folder ({places['config']})"},
        {"entry": str(places["home"]), "why": "is your home folder"}]
    assert {"folder": str(places["config"]), "what": "ljtui's config folder"} in box["never_writable"]
    if box["confined"]:
        assert box["allows"] == f"writes: {repository_place(places['project'])}, a private temp dir; network: off"
    text = ljtui(places, "doctor", "--repo", str(places["project"])).stdout
    assert (f"  left out      agent.sandbox.write_paths commands may never write: {places['shared']} holds ljtui's "
            f"config folder ({places['config']}); {places['home']} is your home folder") in text
    assert f"whatever the config says, commands never write ljtui's own folders ({places['config']}, " in text
