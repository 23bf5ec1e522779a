from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import ljtui.cli
from ljtui.cli.main import COMMANDS, chosen_command, main


def test_every_command_module_is_listed() -> None:
    modules = {m.name.removeprefix("cmd_") for m in pkgutil.iter_modules(ljtui.cli.__path__)
               if m.name.startswith("cmd_")}
    assert modules == set(COMMANDS)


def test_chosen_command_skips_option_values() -> None:
    assert chosen_command(["--model", "apply", "review", "plan.md"]) == "review"
    assert chosen_command(["--provider", "scripted", "--script", "s.yaml"]) is None
    assert chosen_command(["apply", "plan.md", "--dry-run"]) == "apply"
    assert chosen_command(["nonsense"]) is None
    assert chosen_command(["--resume", "20261201-000000-abcd", "run", "x"]) == "run"
    assert chosen_command(["--resume", "run", "x"]) == "run"  # a command is never a session id
    assert chosen_command(["--continue", "run", "x"]) == "run"


def test_resume_and_continue_choose_a_session_before_or_after_the_command() -> None:
    from ljtui.cli.main import build_parser, split_optional_values

    def parsed(*argv: str):
        argv = tuple(split_optional_values(argv))
        return build_parser(argv).parse_args(argv)

    assert parsed("--resume", "20261201-000000-abcd").resume == "20261201-000000-abcd"
    assert parsed("--continue").resume == "" == parsed("--resume").resume and parsed().resume is None
    assert parsed("--resume", "run", "x").resume == "" and parsed("--resume", "run", "x").request == "x"
    assert parsed("--continue", "run", "x").resume == ""
    assert parsed("run", "x", "--resume", "ID").resume == "ID"
    with pytest.raises(SystemExit):
        parsed("--continue", "--resume", "ID")


def test_starting_the_cli_imports_no_command_and_no_ui() -> None:
    code = (
        "import sys\n"
        "from ljtui.cli.main import build_parser\n"
        "build_parser([])\n"
        "heavy = ('textual', 'anthropic', 'openai', 'markdown_it', 're2', 'ljtui.core.edits', "
        "'ljtui.core.planner', 'ljtui.core.engine', 'ljtui.cli.cmd_')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_review_refuses_a_missing_plan(tmp_path: Path, capsys) -> None:
    assert main(["review", str(tmp_path / "nope.md")]) == 2
    assert capsys.readouterr().err.strip() == f"ljtui review: cannot open {tmp_path / 'nope.md'}: no such file"
    assert main(["review", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_help_lists_every_command(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for name, help_text in COMMANDS.items():
        assert name in out
    assert "open an EDIT plan in the Diff pane" in out


def test_model_flags_work_before_or_after_the_command(tmp_path, capsys) -> None:
    from tests.fixtures import SCRIPTS

    script = str(SCRIPTS / "hello.yaml")
    assert main(["--provider", "scripted", "--script", script, "run", "hi", "--repo", str(tmp_path)]) == 0
    before = capsys.readouterr().out
    assert main(["run", "hi", "--provider", "scripted", "--script", script, "--repo", str(tmp_path)]) == 0
    assert capsys.readouterr().out == before and before.startswith("I read the repository.")
    assert main(["--repo", str(tmp_path / "typo"), "run", "hi", "--script", script]) == 2


def test_help_says_no_command_opens_the_app_and_every_command_has_a_description(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "With no command, ljtui opens the full-screen app" in text
    assert "repository:\n  --repo" in text
    for name in ("undo", "recover", "trust", "plan", "apply", "review", "run"):
        with pytest.raises(SystemExit):
            main([name, "--help"])
        assert "usage: ljtui " + name in capsys.readouterr().out


def test_the_full_screen_app_recovers_inside_itself_not_on_the_terminal(git_repo, capsys) -> None:
    from ljtui.cli.main import build_parser, recover_leftover_journal
    from ljtui.core.edits.validate import FileChange
    from tests.core.edits.helpers import interrupted_transaction

    interrupted_transaction(git_repo, [FileChange("new.py", git_repo / "new.py", None, b"x\n")])
    recover_leftover_journal(build_parser([]).parse_args(["--repo", str(git_repo)]))
    assert capsys.readouterr().err == "" and (git_repo / "new.py").exists()
    argv = ["undo", "--repo", str(git_repo)]
    recover_leftover_journal(build_parser(argv).parse_args(argv))
    assert "recovered unfinished apply" in capsys.readouterr().err and not (git_repo / "new.py").exists()
