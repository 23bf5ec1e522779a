"""get_outline and find_symbol on a real repository, and the outline in the system prompt."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent.tools import agent_tools
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.agent.context import PromptContext
from ljtui.core.events import Notice
from ljtui.core.ports import ListSink
from tests.conftest import git

CODE = '''class Uploader:
    def send(self, data):
        return len(data)


def upload(path):
    return Uploader().send(open(path).read())
'''


async def call(engine: Engine, tool: str, **args: object):
    return await engine.tools.call(tool, args, engine.tool_context(1, "c1"))


def engine_in(repo: Path, sink: ListSink | None = None) -> Engine:
    return Engine(Config(), sink or ListSink(), repo_root=repo, clock=FixedClock())


async def test_outline_of_a_file_and_of_the_repository(git_repo: Path) -> None:
    (git_repo / "upload.py").write_text(CODE)
    engine = engine_in(git_repo)
    one = await call(engine, "get_outline", path="upload.py")
    assert one.ok and "1: class Uploader\n    2: def send(self, data)" in one.content
    assert "greet" not in one.content
    whole = await call(engine, "get_outline")
    assert whole.ok and "greet" in whole.content and "Uploader" in whole.content


async def test_find_symbol_puts_exact_names_first_and_says_where(git_repo: Path) -> None:
    (git_repo / "upload.py").write_text(CODE)
    engine = engine_in(git_repo)
    found = await call(engine, "find_symbol", name="Uploader.send")
    assert found.ok and found.content == "upload.py:2 method Uploader.send: def send(self, data)"
    assert found.summary == "1 match(es)"
    prefix = await call(engine, "find_symbol", name="Upl")
    assert prefix.ok and "Uploader" in prefix.content


async def test_bad_arguments_and_paths_are_tool_errors(git_repo: Path) -> None:
    engine = engine_in(git_repo)
    for name, args in [("find_symbol", {"name": ""}), ("find_symbol", {"name": "a b"}),
                       ("get_outline", {"path": "../outside"}), ("get_outline", {"path": "missing.py"})]:
        result = await call(engine, name, **args)
        assert not result.ok and result.content.startswith("error: "), (name, args, result)


async def test_secret_files_are_never_outlined(git_repo: Path) -> None:
    (git_repo / ".env.py").write_text("API_KEY = 'sk-live'\ndef leaked():\n    pass\n")
    engine = engine_in(git_repo)
    result = await call(engine, "find_symbol", name="leaked")
    assert result.ok and "leaked" not in result.content.replace("'leaked'", "")
    assert "sk-live" not in (await engine.prepare_context())


async def test_the_system_prompt_carries_the_ranked_outline(git_repo: Path) -> None:
    (git_repo / "upload.py").write_text(CODE)
    git(git_repo, "add", "upload.py")
    prompt = await engine_in(git_repo).prepare_context()
    assert "# Outline (most referenced definitions first)" in prompt and "2: def send(self, data)" in prompt


async def test_an_outline_that_cannot_be_built_is_left_out_with_a_warning(git_repo: Path) -> None:
    sink = ListSink()
    engine = engine_in(git_repo, sink)

    class Broken:
        def prompt_text(self) -> str:
            raise OSError("disk on fire")

    context = PromptContext(git_repo, engine.settings, engine.sink, outline=Broken(),  # type: ignore[arg-type]
                            memory=engine.services.memory, after_build=lambda: None)
    prompt = await context.prepare()
    assert "# Outline" not in prompt and "def greet" not in prompt and "# Git" in prompt
    [notice] = [e for e in sink.events if isinstance(e, Notice)]
    assert "OSError: disk on fire" in notice.message and notice.level == "warning"


def test_the_agent_has_its_tools_in_a_fixed_order() -> None:
    assert [s.name for s in agent_tools().specs] == [
        "read_file", "list_files", "grep_files", "get_outline", "find_symbol", "write_file", "edit_file",
        "apply_patch", "create_directory", "bash", "propose_commit", "web_search", "web_fetch", "save_memory",
        "playbook_save", "playbook_search",
        "playbook_get", "playbook_promote", "playbook_feedback", "gate_status", "gate_propose", "gate_confirm",
        "gate_start", "gate_check", "gate_verify", "gate_finish", "gate_deliver"]
