"""Secret files never leak through the edit paths a model drives.

The planner's plan check and its repair loop, and the agent's
``edit_file``, refuse a target the session's secret-file policy calls
secret (as written, or where a symlink leads) before reading it: a failed
match would quote its text, and a bare "matched" / "did not match" would
let a model test guesses. ``write_file`` may still replace such a file with
the user's permission, but the model learns nothing of what it held. A
file the user allows works as before, and the user's own apply of a plan
keeps working on any file.

The repositories are real: ``git init`` with a token in a remote URL, an
``.env`` and a private key holding the same fake token.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.edits.apply import apply_plan
from ljtui.core.edits.errors import AnchorNotFound, Candidate
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.repair import format_failures_for_repair
from ljtui.core.edits.validate import validate_plan
from ljtui.core.engine import Engine
from ljtui.core.planner.check import check_plan
from ljtui.core.planner.loop import run_planner
from ljtui.core.ports import ListSink
from ljtui.core.review.service import ReviewService
from ljtui.core.secret_files import ALLOW_KEY, SecretFiles
from ljtui.core.tools import ToolResult
from tests.conftest import git
from tests.core.planner.helpers import RecordingClient

TOKEN = "ghp_FAKE0123456789"
"""A fake GitHub token planted in every secret file; it must never reach a model."""
ENV_TEXT = "".join(f"SETTING_{n}=value{n}\n" for n in range(1, 5)) + f"TOKEN={TOKEN}\n" + "".join(
    f"OTHER_{n}=x{n}\n" for n in range(5, 9))
"""Nine lines, the token on line 5: what a ``lines 1-9`` excerpt of ``.env`` would show."""
KEY_TEXT = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{TOKEN}\n-----END OPENSSH PRIVATE KEY-----\n"
APP_TEXT = "def greet(name):\n    return 'hello ' + name\n"
DECLARATIONS = '```json\n{"will_modify": [], "will_add": [], "will_remove": []}\n```\n'
SECRET_NOTE = "looks like a secret file"
"""Words of :meth:`SecretFiles.refusal`, the message every refused read or edit carries."""


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """The shared git repository with an ``.env``, a private key and a token in ``.git/config``.

    ``notes.txt`` links to ``.env``, and ``kube`` to the ``.kube`` folder, whose ``config`` is secret
    only by where it sits.
    """
    (git_repo / ".env").write_text(ENV_TEXT)
    (git_repo / "id_ed25519").write_text(KEY_TEXT)
    git(git_repo, "remote", "add", "origin", f"https://u:{TOKEN}@example.invalid/r.git")
    os.symlink(".env", git_repo / "notes.txt")
    (git_repo / ".kube").mkdir()
    (git_repo / ".kube" / "config").write_text(ENV_TEXT)
    os.symlink(".kube", git_repo / "kube")
    return git_repo


def block(number: int, file: str, old: str, new: str) -> str:
    return f"### EDIT {number}\n\n- file: `{file}`\n\n```old\n{old}```\n\n```new\n{new}```\n\n"


def plan(*blocks: str) -> str:
    return "".join(blocks) + DECLARATIONS


WRONG_OLD = "TOKEN=ghp_WRONG\n"
RIGHT_OLD = f"TOKEN={TOKEN}\n"


# --- the planner's plan check ---------------------------------------------------


@pytest.mark.parametrize("old", [WRONG_OLD, RIGHT_OLD, "SETTING_1=value1\n"], ids=["wrong-old", "right-old", "plain"])
@pytest.mark.parametrize("file", [".env", "id_ed25519", "notes.txt", "./.ENV", "kube/config"])
def test_the_plan_check_refuses_a_secret_target_whatever_its_old(repo: Path, file: str, old: str) -> None:
    verdict = check_plan(plan(block(1, file, old, "TOKEN=new\n")), repo)
    assert not verdict.ok
    assert [e.split(":")[0] for e in verdict.errors] == ["SecretTarget"]
    assert TOKEN not in verdict.feedback and TOKEN not in "".join(verdict.errors)
    assert "value1" not in verdict.feedback and "current source" not in verdict.feedback
    assert SECRET_NOTE in verdict.feedback and ALLOW_KEY in verdict.feedback


def test_the_plan_check_refuses_the_same_way_whether_old_matches_or_not(repo: Path) -> None:
    wrong = check_plan(plan(block(1, ".env", WRONG_OLD, "x\n")), repo)
    right = check_plan(plan(block(1, ".env", RIGHT_OLD, "x\n")), repo)
    assert (wrong.errors, wrong.feedback) == (right.errors, right.feedback)


def test_the_plan_check_never_shows_git_config(repo: Path) -> None:
    verdict = check_plan(plan(block(1, ".git/config", "[core]\n", "x\n")), repo)
    assert not verdict.ok and TOKEN not in verdict.feedback and TOKEN not in "".join(verdict.errors)


def test_a_secret_target_is_refused_before_the_file_is_read(repo: Path) -> None:
    read: list[Path] = []

    def reader(path: Path) -> bytes | None:
        read.append(path)
        return path.read_bytes() if path.exists() else None

    parsed = parse_plan(plan(block(1, ".env", RIGHT_OLD, "x\n"), block(2, "notes.txt", WRONG_OLD, "x\n"),
                             block(3, "app.py", "    return 'hello ' + name\n", "    return name\n")))
    report = validate_plan(parsed, repo, reader=reader, secrets=SecretFiles())
    assert [e.kind for e in report.errors] == ["SecretTarget", "SecretTarget"]
    assert read == [repo / "app.py"]


def test_other_blocks_never_find_candidates_in_a_secret_file(repo: Path) -> None:
    """A block on ``.env`` would load it, and a later block's evidence would then search it."""
    text = plan(block(1, ".env", RIGHT_OLD, RIGHT_OLD), block(2, "app.py", f"X = 'TOKEN={TOKEN}'\n", "X = 1\n"))
    verdict = check_plan(text, repo)
    assert not verdict.ok and ".env:" not in verdict.feedback and TOKEN not in verdict.feedback.replace(
        f"X = 'TOKEN={TOKEN}'", "")


def test_the_check_takes_the_users_allow_list(repo: Path) -> None:
    allowed = SecretFiles.allowing([".env"])
    assert check_plan(plan(block(1, ".env", RIGHT_OLD, "TOKEN=new\n")), repo, allowed).ok
    wrong = check_plan(plan(block(1, ".env", "TOKEN=ghp_FAKE012345678X\n", "x\n")), repo, allowed)
    assert wrong.errors[0].startswith("AnchorNotFound") and "candidate .env:5" in wrong.feedback
    still = check_plan(plan(block(1, "id_ed25519", TOKEN + "\n", "x\n")), repo, allowed)
    assert still.errors[0].startswith("SecretTarget") and TOKEN not in still.feedback


async def test_the_repair_prompt_never_quotes_a_secret_file(repo: Path) -> None:
    """The plans' own text comes back in the transcript, so they hold no part of the file but a guessed line."""
    first = plan(block(1, ".env", WRONG_OLD, "TOKEN=new\n"))
    second = plan(block(1, ".env", "OTHER_5=x5\n", "OTHER_5=y\n"))
    client = RecordingClient(first, second, second, second)
    result = await run_planner(client, repo, "rotate the token", max_turns=4)
    assert not result.ok and all(e.startswith("SecretTarget") for e in result.errors)
    prompts = [client.prompt(n) for n in range(len(client.requests))]
    assert len(prompts) == 4 and not any(TOKEN in p or "value1" in p or "OTHER_6" in p for p in prompts)
    assert SECRET_NOTE in prompts[1] and ALLOW_KEY in prompts[1]


async def test_an_allowed_file_is_planned_as_before(repo: Path) -> None:
    client = RecordingClient(plan(block(1, ".env", RIGHT_OLD, "TOKEN=new\n")))
    result = await run_planner(client, repo, "rotate the token", allow_secret_files=[".env"])
    assert result.ok and result.errors == ()


def test_repair_text_for_a_model_leaves_secret_files_unquoted(repo: Path) -> None:
    """Defence in depth: even an error computed elsewhere (the user's apply) is not quoted back to a model."""
    error = AnchorNotFound(1, "`old` does not occur in .env", file=".env",
                           candidates=(Candidate(".env", 5, 0.9, f"TOKEN={TOKEN}"),))
    other = AnchorNotFound(2, "`old` does not occur in app.py", file="app.py",
                           candidates=(Candidate("notes.txt", 5, 0.9, f"TOKEN={TOKEN}"),
                                       Candidate("app.py", 2, 0.5, "return")))
    for_model = format_failures_for_repair([error, other], repo, secrets=SecretFiles())
    assert TOKEN not in for_model and "value1" not in for_model and ".env:5" not in for_model
    assert "notes.txt:5" not in for_model and "candidate app.py:2" in for_model
    for_user = format_failures_for_repair([error], repo)
    assert TOKEN in for_user


def test_the_users_own_apply_still_changes_a_secret_file(repo: Path) -> None:
    report = apply_plan(parse_plan(plan(block(1, ".env", RIGHT_OLD, "TOKEN=rotated\n"))), repo, clock=FixedClock())
    assert report.result.status == "done" and "TOKEN=rotated\n" in (repo / ".env").read_text()


async def test_the_diff_pane_still_applies_the_users_plan_to_a_secret_file(repo: Path) -> None:
    approver = ScriptedApprover({"apply": ["yes"]})
    review = ReviewService(repo, ListSink(), approver.decide, FixedClock(), SecretFiles())
    assert review.open_text(plan(block(1, ".env", RIGHT_OLD, "TOKEN=rotated\n")), "plan.md")
    await review.apply()
    assert len(approver.asked) == 1 and "TOKEN=rotated\n" in (repo / ".env").read_text()


# --- the agent's edit_file, write_file, create_directory ---------------------------


def make_engine(repo: Path, answers: list[str] | None = None, allow: list[str] | None = None
                ) -> tuple[Engine, ScriptedApprover]:
    config = Config()
    config.security.allow_secret_files = list(allow or [])
    approver = ScriptedApprover({"permission": list(answers or [])})
    return Engine(config, ListSink(), repo_root=repo, clock=FixedClock(), approver=approver), approver


async def call(engine: Engine, name: str, **args: object) -> ToolResult:
    return await engine.tools.call(name, args, engine.tool_context(1, f"call-{name}"))


def leaks(result: ToolResult) -> bool:
    return TOKEN in result.content or TOKEN in result.summary or "value1" in result.content


@pytest.mark.parametrize("path", [".env", "notes.txt", "id_ed25519", "./.env", "kube/config"])
@pytest.mark.parametrize("old", [WRONG_OLD, RIGHT_OLD, "SETTING_1=value1\n", ""],
                         ids=["wrong-old", "right-old", "plain", "create"])
async def test_edit_file_refuses_a_secret_target_before_reading_it(repo: Path, path: str, old: str) -> None:
    engine, approver = make_engine(repo, ["once"])
    result = await call(engine, "edit_file", path=path, old=old, new="TOKEN=new\n")
    assert not result.ok and not leaks(result) and "nearest" not in result.content
    assert SECRET_NOTE in result.content and ALLOW_KEY in result.content
    assert approver.asked == [] and (repo / ".env").read_text() == ENV_TEXT == (repo / ".kube/config").read_text()


async def test_edit_file_answers_the_same_whether_old_matches_or_not(repo: Path) -> None:
    engine, _ = make_engine(repo, ["once", "once"])
    wrong = await call(engine, "edit_file", path=".env", old=WRONG_OLD, new="x\n")
    right = await call(engine, "edit_file", path=".env", old=RIGHT_OLD, new="x\n")
    assert (wrong.ok, wrong.content, wrong.summary) == (right.ok, right.content, right.summary)


async def test_edit_file_never_shows_git_config(repo: Path) -> None:
    engine, approver = make_engine(repo, ["once"])
    result = await call(engine, "edit_file", path=".git/config", old="[core]\n", new="x\n")
    assert not result.ok and not leaks(result) and approver.asked == []


async def test_edit_file_on_an_allowed_file_works_as_before(repo: Path) -> None:
    engine, approver = make_engine(repo, ["once"], allow=[".env"])
    wrong = await call(engine, "edit_file", path=".env", old="TOKEN=ghp_FAKE012345678X\n", new="x\n")
    assert not wrong.ok and "nearest: .env:5" in wrong.content
    right = await call(engine, "edit_file", path=".env", old=RIGHT_OLD, new="TOKEN=rotated\n")
    assert right.ok and len(approver.asked) == 1 and "TOKEN=rotated\n" in (repo / ".env").read_text()


@pytest.mark.parametrize("path", [".env", "notes.txt"])
async def test_write_file_over_a_secret_file_tells_the_model_nothing_of_it(repo: Path, path: str) -> None:
    engine, approver = make_engine(repo, ["once", "once"])
    changed = await call(engine, "write_file", path=path, content="TOKEN=rotated\n")
    assert changed.ok and (repo / ".env").read_text() == "TOKEN=rotated\n"
    assert f"-TOKEN={TOKEN}" in approver.asked[0].lines  # the user sees the diff; the model does not
    assert not leaks(changed) and "diff lines" not in changed.content
    same = await call(engine, "write_file", path=path, content="TOKEN=rotated\n")
    assert len(approver.asked) == 2, "an unchanged secret file is asked about like a changed one"
    assert (same.ok, same.content, same.summary) == (changed.ok, changed.content, changed.summary)


async def test_a_denied_write_over_a_secret_file_tells_nothing_either(repo: Path) -> None:
    engine, _ = make_engine(repo)
    different = await call(engine, "write_file", path=".env", content="x\n")
    same = await call(engine, "write_file", path=".env", content=ENV_TEXT)
    assert not different.ok and not leaks(different) and (repo / ".env").read_text() == ENV_TEXT
    assert (same.ok, same.content) == (different.ok, different.content)


async def test_write_file_on_an_allowed_file_works_as_before(repo: Path) -> None:
    engine, approver = make_engine(repo, ["once"], allow=[".env"])
    same = await call(engine, "write_file", path=".env", content=ENV_TEXT)
    assert same.ok and "nothing was written" in same.content and approver.asked == []
    changed = await call(engine, "write_file", path=".env", content="x\n")
    assert changed.ok and "diff lines" in changed.content


async def test_create_directory_shows_nothing_of_a_secret_file(repo: Path) -> None:
    engine, _ = make_engine(repo, ["once"])
    result = await call(engine, "create_directory", path=".env/sub")
    assert not result.ok and not leaks(result)
