"""``ljtui acp`` in a layered session: a turn's net change reaches the editor as one call with a diff per file,
and the editor is asked once, on that call, whether to apply it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.layer.service import Layer
from tests.acp.client import Editor, ljtui_acp
from tests.acp.test_acp_agent import new_session, prompt
from tests.conftest import git

COMMAND = "rm old.py && printf 'def greet(name):\\n    return name\\n' > app.py && echo 'NEW = 1' > new.py"
SCRIPT = ("turns:\n  - text: \"Tidying.\"\n    tool_calls:\n      - name: bash\n"
          f"        input: {{command: {COMMAND!r}}}\n  - text: \"Done.\"\n")


@pytest.fixture
def repo(git_repo: Path, layered: Path) -> Path:
    (git_repo / "old.py").write_text("OLD = 1\n", encoding="utf-8")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-q", "-m", "old")
    status = Layer(git_repo).status
    if not status.layered:
        pytest.skip(f"no layer on this machine: {status.why}")
    return git_repo


def answer_apply(reply: str | None):  # type: ignore[no-untyped-def]
    def answer(tool_call, options):  # type: ignore[no-untyped-def]
        return reply if (tool_call.tool_call_id or "").startswith("ljtui-layer-") else "allow_once"
    return answer


@pytest.mark.parametrize("reply", ["allow_once", "reject_once"])
async def test_the_layers_change_is_one_call_with_a_diff_per_file_asked_once(repo: Path, tmp_path: Path,
                                                                             reply: str) -> None:
    script = tmp_path / "turn.yaml"
    script.write_text(SCRIPT, encoding="utf-8")
    before = (repo / "app.py").read_text(encoding="utf-8")
    editor = Editor(answer_apply(reply))
    async with ljtui_acp(repo, script, editor) as (conn, _):
        session_id = await new_session(conn, repo)
        response = await prompt(conn, session_id, "tidy up")
    assert response.stop_reason == "end_turn"
    [start] = [u for u in editor.of("tool_call") if u.tool_call_id.startswith("ljtui-layer-")]
    assert start.kind == "edit" and start.title == "the layer: 3 file(s) changed"
    diffs = {d.path: (d.old_text, d.new_text) for d in start.content}
    assert diffs == {str(repo / "app.py"): (before, "def greet(name):\n    return name\n"),
                     str(repo / "new.py"): (None, "NEW = 1\n"),
                     str(repo / "old.py"): ("OLD = 1\n", "")}
    [(asked, options)] = editor.asked  # the command ran in the layer unasked; the apply is the one question
    assert asked.tool_call_id == start.tool_call_id and [d.type for d in asked.content][:3] == ["diff"] * 3
    assert "Write 3 file(s)" in asked.content[-1].content.text
    end = editor.call(start.tool_call_id)[-1]
    if reply == "allow_once":
        assert end.status == "completed" and not (repo / "old.py").exists()
        assert (repo / "new.py").read_text(encoding="utf-8") == "NEW = 1\n"
    else:
        assert end.status == "failed" and "stays in the layer" in end.content[-1].content.text
        assert (repo / "old.py").exists() and not (repo / "new.py").exists()
        assert (repo / "app.py").read_text(encoding="utf-8") == before
