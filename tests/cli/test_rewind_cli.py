"""``ljtui rewind`` on a session a real engine saved: the list, a rewind of the files and the conversation, a
refusal when a file changed since, and the exit codes of ``ljtui undo``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ljtui.cli.main import main
from ljtui.core.agent.session_replay import read_session
from tests.core.test_rewind import three_messages


def saved(repo: Path) -> str:
    """A saved session of three messages (app.py, new.py, app.py again), its engine closed."""
    async def run() -> str:
        engine, _, _, _ = await three_messages(repo)
        session_id = engine.session_log.id
        await engine.aclose()
        return session_id
    return asyncio.run(run())


def test_the_list_numbers_the_messages_with_their_files(git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session_id = saved(git_repo)
    assert main(["rewind", "--list", "--repo", str(git_repo)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"session {session_id}: 3 message(s)",
        "   1  first  (2 file(s) to restore)",
        "   2  second  (2 file(s) to restore)",
        "   3  third  (1 file(s) to restore)",
    ]


def test_rewinding_both_restores_the_files_and_the_saved_conversation(git_repo: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    session_id = saved(git_repo)
    assert main(["rewind", "2", "--session", session_id, "--yes", "--repo", str(git_repo)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["restored app.py", "deleted new.py (created since)",
                                f"the conversation of session {session_id} is back to before message 2"]
    assert (git_repo / "app.py").read_text() == "one\n" and not (git_repo / "new.py").exists()
    session = read_session(git_repo, session_id)
    assert [m.text for m in session.history if m.role == "user" and m.text] == ["first"]
    assert main(["rewind", "--list", "--repo", str(git_repo)]) == 0
    assert "   1  first  (1 file(s) to restore)" in capsys.readouterr().out


def test_code_only_keeps_the_conversation(git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session_id = saved(git_repo)
    assert main(["rewind", "3", "--code", "--yes", "--repo", str(git_repo)]) == 0
    assert capsys.readouterr().out.splitlines() == ["restored app.py"]
    assert (git_repo / "app.py").read_text() == "one\n"
    assert len(read_session(git_repo, session_id).history) == 12


def test_refusals_exit_2_and_change_nothing(git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved(git_repo)
    (git_repo / "new.py").write_text("by hand\n")
    assert main(["rewind", "1", "--yes", "--repo", str(git_repo)]) == 2
    assert capsys.readouterr().err == ("ljtui rewind: refusing to rewind: changed since the apply: new.py; "
                                       "nothing was written\n")
    assert (git_repo / "app.py").read_text() == "three\n"
    assert main(["rewind", "9", "--yes", "--repo", str(git_repo)]) == 2
    assert "there is no message 9" in capsys.readouterr().err
    assert main(["rewind", "1", "--repo", str(git_repo)]) == 2  # no terminal and no --yes: declined
    assert (git_repo / "app.py").read_text() == "three\n"
    assert main(["rewind", "--repo", str(git_repo)]) == 2


def test_no_saved_session(git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rewind", "--list", "--repo", str(git_repo)]) == 2
    assert capsys.readouterr().err == "ljtui rewind: no saved session in this repository\n"
