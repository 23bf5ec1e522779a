"""A file that changes between the dialog and the write: an edit is made on what is there now, or refused."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.approval import Decision, ScriptedApprover
from tests.core.agent.test_edit_tools import call, make_engine


def changing_to(repo: Path, text: str) -> ScriptedApprover:
    """An approver that allows, after the file changed on disk while the dialog was open."""
    approver = ScriptedApprover()

    async def change_then_allow(request):
        (repo / "app.py").write_text(text)
        return Decision("once")

    approver.decide = change_then_allow
    return approver


async def test_an_edit_whose_file_changed_elsewhere_is_made_on_the_current_bytes(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, changing_to(git_repo, "# a comment added meanwhile\ndef greet(name):\n"
                                                           "    return 'hello ' + name\n"))
    result = await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")
    assert result.ok, result.content
    assert "app.py changed on disk after this edit was worked out" in result.content
    assert (git_repo / "app.py").read_text() == ("# a comment added meanwhile\ndef greet(name):\n"
                                                 "    return 'hi ' + name\n")


async def test_an_edit_that_no_longer_applies_after_a_change_is_refused_and_writes_nothing(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, changing_to(git_repo, "def greet(name):\n    return 'hey ' + name\n"))
    result = await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")
    assert not result.ok
    assert "StalePlan: app.py changed on disk after this edit was worked out, and the edit no longer applies" \
        in result.content
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hey ' + name\n"
