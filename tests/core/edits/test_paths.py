"""Which paths a plan may write: spelling, protected folders, read-only files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.apply import commit_plan, preview_plan
from ljtui.core.edits.paths import resolve_target
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.validate import validate_plan
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import apply_text, block, id_factory, plan_text

READ_ONLY = 0o444


def only_error(root: Path, path: str, old: str = "", new: str = "x\n") -> E.EditError:
    report = validate_plan(parse_plan(plan_text(block(1, path, old, new))), root)
    (err,) = report.errors
    return err


def test_colon_in_a_file_name_is_an_ordinary_name(tmp_path):
    report = apply_text(plan_text(block(1, "a:b.txt", "", "x\n")), tmp_path)
    assert report.result.status == "done" and report.result.files == ["a:b.txt"]
    assert (tmp_path / "a:b.txt").read_bytes() == b"x\n"


@pytest.mark.parametrize("path", ["C:/x.py", "C:\\x.py", "z:/Windows/system.ini"])
def test_drive_letter_paths_are_absolute(tmp_path, path):
    err = only_error(tmp_path, path)
    assert type(err) is E.PathEscape
    assert err.message == f"{path} is absolute; plan paths are relative to the repo root"


@pytest.mark.parametrize("path", ["src\\a.py", "a\\..\\..\\x", "\\\\server\\share\\x", "dir/x\\"])
def test_a_backslash_is_forbidden_with_a_hint(tmp_path, path):
    err = only_error(tmp_path, path)
    assert type(err) is E.PathForbidden
    assert err.message == f"{path} contains a backslash: use / between folders (a backslash is not a folder " \
                          "separator here)"
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("path", [".agent/.gitignore", ".agent/x.md", ".Agent/x", ".AGENT/journal/tx-1/manifest.json",
                                  "./.agent/playbooks/p.md"])
def test_nothing_under_agent_may_be_written(tmp_path, path):
    err = only_error(tmp_path, path)
    assert type(err) is E.PathProtected
    assert err.message == f"{path} is inside .agent/, ljtui's own state folder, which plans may not create or change"


@pytest.mark.parametrize("path", [".git/config", ".GIT/config", "sub/.git/config", "sub/.git", "a/b/.Git/HEAD",
                                  ".git"])
def test_no_path_with_a_git_component_may_be_written(tmp_path, path):
    err = only_error(tmp_path, path)
    assert type(err) is E.PathProtected
    assert err.message == f"{path} is inside a .git folder or file, which plans may not create or change"


@pytest.mark.parametrize("path", [".gitignore", ".github/workflows/ci.yml", "docs/.agent/notes.md", "a.git/x",
                                  ".agentrc", "sub/.gitmodules"])
def test_names_that_only_look_protected_are_allowed(tmp_path, path):
    report = apply_text(plan_text(block(1, path, "", "x\n")), tmp_path)
    assert report.result.status == "done", report.errors
    assert (tmp_path / path).read_bytes() == b"x\n"


def test_creating_agent_gitignore_is_refused_at_validation_not_as_stale(tmp_path):
    report = apply_text(plan_text(block(1, ".agent/.gitignore", "", "*\n")), tmp_path)
    (err,) = report.errors
    assert type(err) is E.PathProtected and err.block == 1
    assert report.result.status == "error"
    assert not (tmp_path / ".agent").exists()


def test_a_symlink_inside_the_repo_does_not_open_a_way_into_agent(tmp_path):
    (tmp_path / ".agent").mkdir()
    os.symlink(".agent", tmp_path / "state")
    err = only_error(tmp_path, "state/config.yaml")
    assert type(err) is E.PathProtected
    assert err.message == ("state/config.yaml resolves to .agent/config.yaml: .agent/config.yaml is inside .agent/, "
                           "ljtui's own state folder, which plans may not create or change")
    assert list((tmp_path / ".agent").iterdir()) == []


def test_a_read_only_target_is_refused_at_validation(tmp_path):
    target = tmp_path / "a.py"
    target.write_bytes(b"a = 1\n")
    os.chmod(target, READ_ONLY)
    err = only_error(tmp_path, "a.py", "a = 1\n", "a = 2\n")
    assert type(err) is E.ReadOnlyTarget
    assert err.message == ("a.py is read-only (mode 444); ljtui never overwrites a file without write permission: "
                           "make it writable first")
    assert target.read_bytes() == b"a = 1\n"


def test_a_target_made_read_only_after_validation_is_refused_when_writing(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a = 1\n")
    (tmp_path / "b.py").write_bytes(b"b = 1\n")
    plan = parse_plan(plan_text(block(1, "a.py", "a = 1\n", "a = 2\n"), block(2, "b.py", "b = 1\n", "b = 2\n")))
    preview = preview_plan(plan, tmp_path)
    assert preview.ok
    os.chmod(tmp_path / "b.py", READ_ONLY)
    report = commit_plan(preview, tmp_path, clock=FixedClock(), new_id=id_factory(), run_checks=False)
    (err,) = report.errors
    assert type(err) is E.ReadOnlyTarget and err.file == "b.py"
    assert report.result.status == "error" and report.result.files == []
    assert (tmp_path / "a.py").read_bytes() == b"a = 1\n" and (tmp_path / "b.py").read_bytes() == b"b = 1\n"
    assert J.pending(tmp_path) == [] and J.kept(tmp_path) == []


def test_resolve_target_reports_the_block_number(tmp_path):
    err = resolve_target(tmp_path, "sub/.git/hooks/pre-commit", 7)
    assert isinstance(err, E.PathProtected) and err.block == 7 and err.file == "sub/.git/hooks/pre-commit"
