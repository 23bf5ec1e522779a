"""The command line prints text from outside ljtui with its controls visible, never as terminal control
(SAFE-4), and its JSON holds no raw control character.

The hostile corpus (:mod:`tests.fixtures.hostile`) goes through ``ljtui run`` (the streamed reply, tool
lines, a command's output, the notes; ``--json`` too), the approver's questions, ``apply``'s report of a
file's lines (text and ``--json``), ``stats --json``, and every command that prints the repository's path
(``doctor``, ``sessions``, ``review``, ``plan``) when that path is hostile. The bytes each process writes
are checked: no ESC, BEL, CR, C1, bidirectional control … from the corpus; only its visible form.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ljtui.cli.approver import CliApprover
from ljtui.cli.cmd_run import TextSink
from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.display import shown
from ljtui.core.events import Notice, TokenDelta, ToolCallStarted, ToolOutput
from tests.conftest import git
from tests.fixtures.hostile import HOSTILE, RAW_BYTES, one_of_each

TIMEOUT = 60
PRINTF = ("printf '\\033]52;c;SGVsbG8=\\007|\\033]0;title\\007|\\033[2K\\033[1Gfake|\\302\\2332J|a\\rb|"
          "x\\342\\200\\256txt.exe\\n'")
"""A plain-ASCII command whose output is a clipboard write, a title, an erase, an 8-bit CSI, a lone CR and a
bidirectional override."""
PRINTED = ("\\x1b]52;c;SGVsbG8=\\x07", "\\x1b]0;title\\x07", "\\x1b[2K\\x1b[1Gfake", "\\x9b2J", "a\\rb",
           "x\\u202etxt.exe")
"""What that output looks like once made visible."""
WRITABLE = tuple(text.replace("\x00", "") for text in HOSTILE)
"""The corpus as lines of a text file (a NUL would make it binary)."""


@pytest.fixture
def env(isolated_env: Path, tmp_path: Path) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return {**environ, "XDG_CONFIG_HOME": str(isolated_env), "XDG_STATE_HOME": str(tmp_path / "state")}


def ljtui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args], capture_output=True, env=env,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def assert_no_raw_control(proc: subprocess.CompletedProcess[bytes]) -> tuple[str, str]:
    """Neither stream holds a control byte (nor a C1 or bidirectional control); both, decoded."""
    for name in ("stdout", "stderr"):
        found = sorted(set(RAW_BYTES.findall(getattr(proc, name))))
        assert not found, f"{name} writes {found}: {getattr(proc, name)[-2000:]!r}"
    return proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def write_script(tmp_path: Path, turns: list[dict]) -> str:
    path = tmp_path / "hostile-script.yaml"
    path.write_text(yaml.safe_dump({"turns": turns}, allow_unicode=False), encoding="utf-8")
    return str(path)


def hostile_run(git_repo: Path, tmp_path: Path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess[bytes]:
    reply = "\n\n".join(HOSTILE)
    calls = [{"name": "read_file", "input": {"path": text}} for text in HOSTILE]
    calls.append({"name": "bash", "input": {"command": PRINTF}})
    script = write_script(tmp_path, [{"text": reply, "tool_calls": calls}, {"text": f"Done. {one_of_each()}"}])
    return ljtui("run", "--provider", "scripted", "--script", script, "--repo", str(git_repo), *flags, "look",
                 env=env)


def test_run_prints_a_hostile_reply_its_tool_calls_and_a_command_s_output_visibly(
        git_repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    proc = hostile_run(git_repo, tmp_path, env, "--allow", "bash")
    assert proc.returncode == 0, proc.stderr
    out, err = assert_no_raw_control(proc)
    for text in HOSTILE:
        assert shown(text) in out, ascii(text)  # the reply, word for word, controls visible
    for text in PRINTED:
        assert text in err, text  # the command's output
    assert err.count("[tool read_file ") == len(HOSTILE) and "[tool bash: ok: " in err


def test_run_json_writes_every_event_with_no_raw_control_and_keeps_every_character(
        git_repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    proc = hostile_run(git_repo, tmp_path, env, "--allow", "bash", "--json")
    assert proc.returncode == 0, proc.stderr
    out, _ = assert_no_raw_control(proc)
    events = [json.loads(line) for line in out.splitlines()]
    reply = "".join(e["text"] for e in events if e["kind"] == "token_delta")
    assert reply.startswith("\n\n".join(HOSTILE))  # escaped in JSON, the same text once parsed
    paths = [e["input"]["path"] for e in events if e["kind"] == "tool_call_started" and e["name"] == "read_file"]
    assert paths == list(HOSTILE)


def test_run_asking_without_a_terminal_prints_the_question_visibly(git_repo: Path, tmp_path: Path,
                                                                   env: dict[str, str]) -> None:
    proc = hostile_run(git_repo, tmp_path, env)
    assert proc.returncode == 1, proc.stderr  # the command is denied and every file read fails
    _, err = assert_no_raw_control(proc)  # the final line names the failed calls' hostile paths, visibly
    assert "Run this command? Not a terminal, so the answer is" in err
    assert err.splitlines()[-1].startswith(
        f"ljtui run: finished, but all {len(HOSTILE)} tool calls that were not denied failed (read_file: ")


def test_the_streamed_reply_keeps_a_line_break_split_across_pieces_and_shows_a_lone_return() -> None:
    out, err = io.StringIO(), io.StringIO()
    sink = TextSink(out, err)
    for piece in ("one\r", "\ntwo\r", "three ", "\x1b]0;title\x07\r"):
        sink.emit(TokenDelta(1, piece))
    sink.emit(ToolCallStarted(1, "c1", "bash", {"command": HOSTILE[9]}))
    for piece in ("out\r", "\n", HOSTILE[5]):
        sink.emit(ToolOutput(1, "c1", piece))
    sink.emit(Notice(one_of_each()))
    assert out.getvalue() == "one\ntwo\\rthree \\x1b]0;title\\x07\\r\n"
    assert err.getvalue().startswith('[tool bash {"command": "\\u009b2J"}]\nout\n\\x1b]52;c;SGVsbG8=\\x07[')
    assert f"[{shown(one_of_each())}]" in err.getvalue()
    assert not RAW_BYTES.search((out.getvalue() + err.getvalue()).encode())


def hostile_request(**fields: object) -> ApprovalRequest:
    return ApprovalRequest("permission", f"Write {HOSTILE[4]}?", HOSTILE,
                           (Choice("once", "allow once", "enter"), Choice("deny", "deny", "escape")), "deny",
                           **fields)  # type: ignore[arg-type]


async def test_the_approver_asks_with_every_control_and_invisible_character_visible() -> None:
    asked = io.StringIO()
    approver = CliApprover("ljtui run", yes=False, interactive=True, out=asked, inp=io.StringIO("\nn\n"))
    decision = await approver.decide(hostile_request(text=HOSTILE[6]))
    assert decision.choice == "deny"
    printed = asked.getvalue()
    for text in HOSTILE:
        assert shown(text, exact=True) in printed, ascii(text)
    assert f"Write {shown(HOSTILE[4])}? [{shown(HOSTILE[6])}]: " in printed
    told = io.StringIO()
    await CliApprover("ljtui run", yes=False, interactive=False, out=told).decide(hostile_request(tasks=()))
    for text in HOSTILE:
        assert f"  {shown(text, exact=True)}\n" in told.getvalue(), ascii(text)
    assert not RAW_BYTES.search((printed + told.getvalue()).encode())


def test_commands_print_a_hostile_repository_path_visibly(tmp_path: Path, env: dict[str, str]) -> None:
    name = "repo " + one_of_each().replace("/", "|").replace("\x00", "")
    repo = tmp_path / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    doctor = ljtui("doctor", "--repo", str(repo), env=env)
    out, _ = assert_no_raw_control(doctor)
    assert f"ljtui doctor: {shown(str(repo))}" in out
    sessions = ljtui("sessions", "--repo", str(repo), env=env)
    out, _ = assert_no_raw_control(sessions)
    assert out.strip() == f"no sessions saved in {shown(str(repo))}"
    review = ljtui("review", str(repo / "PLAN.md"), env=env)
    _, err = assert_no_raw_control(review)
    assert review.returncode == 2 and shown(str(repo / "PLAN.md")) in err
    planned = ljtui("plan", "--source", str(repo / "missing"), "--request", "x", "--out", str(tmp_path / "p.md"),
                    env=env)
    _, err = assert_no_raw_control(planned)
    assert planned.returncode == 2 and shown(str(repo / "missing")) in err
    trusted = ljtui("trust", "--yes", str(repo), env=env)
    out, _ = assert_no_raw_control(trusted)
    assert trusted.returncode == 0 and f"trusted: {shown(str(repo), exact=True)}" in out
    listed = ljtui("trust", "--list", env=env)
    out, _ = assert_no_raw_control(listed)
    assert shown(str(repo), exact=True) in out
    revoked = ljtui("trust", "--revoke", str(repo), env=env)
    out, _ = assert_no_raw_control(revoked)
    assert out.strip() == f"no longer trusted: {shown(str(repo), exact=True)}"
    missing = ljtui("sessions", "--repo", str(repo / "gone"), env=env)
    _, err = assert_no_raw_control(missing)
    assert missing.returncode == 2 and f"--repo {shown(str(repo / 'gone'), exact=True)}: not a directory" in err


def test_a_hostile_config_key_is_warned_about_visibly(git_repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    key = "x\x1b]0;title\x07\x1b[2Kallow_commands"
    (git_repo / ".agent").mkdir(exist_ok=True)
    (git_repo / ".agent" / "config.yaml").write_text(yaml.safe_dump({"agent": {key: 1}}, allow_unicode=True),
                                                     encoding="utf-8")
    script = write_script(tmp_path, [{"text": "Done."}])
    for args in (("run", "--provider", "scripted", "--script", script, "look"), ("gates", "list")):
        proc = ljtui(*args, "--repo", str(git_repo), env=env)
        _, err = assert_no_raw_control(proc)
        assert shown(key) in err, args


def test_apply_reports_a_hostile_file_visibly_in_text_and_json(git_repo: Path, tmp_path: Path,
                                                               env: dict[str, str]) -> None:
    source = "def greet(name):\n    return 'hello ' + name\n" + "".join(f"# {text}\n" for text in WRITABLE)
    (git_repo / "app.py").write_text(source, encoding="utf-8")
    plan = tmp_path / "PLAN.md"
    plan.write_text(f"### EDIT 1\n\n- file: `app.py`\n\n```old\n# {HOSTILE[10]}!\n```\n\n```new\ny\n```\n",
                    encoding="utf-8")
    text = ljtui("apply", "--yes", str(plan), "--repo", str(git_repo), env=env)
    _, err = assert_no_raw_control(text)
    assert text.returncode == 2 and "nothing was written" in err
    assert f"# {shown(HOSTILE[10])}" in err  # the file's lines around the nearest match
    as_json = ljtui("apply", "--json", "--yes", str(plan), "--repo", str(git_repo), env=env)
    out, _ = assert_no_raw_control(as_json)
    excerpts = [c["excerpt"] for c in json.loads(out)["failed"][0]["candidates"]]
    assert f"# {HOSTILE[10]}" in excerpts  # escaped in JSON, the same text once parsed


def test_stats_json_escapes_a_hostile_tool_hint(tmp_path: Path, env: dict[str, str]) -> None:
    from ljtui.core.runlog import RunLog

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    log = RunLog(root)
    hints = [HOSTILE[n] for n in (4, 6, 9, 10)]  # an erase, a title, an 8-bit CSI, a bidirectional override
    for n, hint in enumerate(hints):
        for event in ({"kind": "task_plan_proposed", "run_id": f"r{n}", "tasks": [{"id": 1, "tool_hint": hint}]},
                      {"kind": "task_plan_approved", "run_id": f"r{n}"},
                      {"kind": "task_finished", "run_id": f"r{n}", "task_id": 1, "status": "failed"}):
            assert log.append(event) is None
    as_json = ljtui("stats", "--json", "--repo", str(root), env=env)
    out, _ = assert_no_raw_control(as_json)
    assert sorted(h["hint"] for h in json.loads(out)["failing_tool_hints"]) == sorted(hints)
    words = ljtui("stats", "--repo", str(root), env=env)
    out, _ = assert_no_raw_control(words)
    assert "\\x1b]0;title\\x07" in out and "x\\u202etxt.exe" in out
