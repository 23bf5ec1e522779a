"""The key out of reach: withdrawn from ljtui's environment (and its environment block), ljtui non-dumpable,
children without keys or credentials; each checked with a real child process reading /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ljtui.core.childenv import child_env, is_credential

KEY = "sk-ant-test-0123456789abcdef"
NOBODY = 65534

PROBE = textwrap.dedent('''
    import ctypes, json, os, subprocess, sys  # imported before the uid changes: the interpreter may be unreadable then
    from ljtui.core import provider_keys
    mode = sys.argv[1]
    if os.geteuid() == 0:  # a same-user reader: both this process and its child run as nobody
        os.setgroups([]); os.setresgid({nobody}, {nobody}, {nobody}); os.setresuid({nobody}, {nobody}, {nobody})
        provider_keys.set_dumpable(True)  # changing uid made the process non-dumpable; start from dumpable
    if mode == "withdraw":
        provider_keys.withdraw_keys()
    elif mode == "undumpable":
        provider_keys.set_dumpable(False)
    me = os.getpid()
    child = subprocess.run(["/bin/cat", f"/proc/{{me}}/environ"], capture_output=True)
    print(json.dumps({{"child_out": child.stdout.decode("latin-1"), "child_err": child.stderr.decode(),
                      "in_environ": "ANTHROPIC_API_KEY" in os.environ,
                      "held": provider_keys.environment().get("ANTHROPIC_API_KEY"),
                      "dumpable": provider_keys.is_dumpable()}}))
''').format(nobody=NOBODY)


def probe(mode: str) -> dict[str, object]:
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY}
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")
def test_a_same_user_child_reads_the_key_from_proc_unless_ljtui_protects_itself() -> None:
    control = probe("nothing")
    assert KEY in control["child_out"] and control["dumpable"] is True
    withdrawn = probe("withdraw")
    assert KEY not in withdrawn["child_out"] and "ANTHROPIC_API_KEY=" in withdrawn["child_out"]
    assert withdrawn["in_environ"] is False and withdrawn["held"] == KEY
    undumpable = probe("undumpable")
    assert undumpable["dumpable"] is False and undumpable["child_out"] == ""
    assert "Permission denied" in undumpable["child_err"]


def test_children_get_no_provider_key_and_no_credential_unless_the_user_passes_it() -> None:
    base = {"PATH": "/bin", "HOME": "/h", "ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": "k", "GITHUB_TOKEN": "ghp_x",
            "AWS_SECRET_ACCESS_KEY": "a", "AWS_SESSION_TOKEN": "b", "HF_TOKEN": "c", "NPM_TOKEN": "d",
            "STRIPE_API_KEY": "e", "DJANGO_SECRET_KEY": "f", "DB_PASSWORD": "g", "SSH_AUTH_SOCK": "/s",
            "DATABASE_URL": "postgres://me:pw@db/x", "TOKENIZERS_PARALLELISM": "false", "LANG": "C.UTF-8",
            "RENAMED": KEY}
    env = child_env(base, secrets=[KEY])
    assert env == {"PATH": "/bin", "HOME": "/h", "TOKENIZERS_PARALLELISM": "false", "LANG": "C.UTF-8"}
    passed = child_env(base, secrets=[KEY], pass_env=["GITHUB_TOKEN", "SSH_AUTH_SOCK", "ANTHROPIC_API_KEY"])
    assert passed["GITHUB_TOKEN"] == "ghp_x" and passed["SSH_AUTH_SOCK"] == "/s"
    assert "ANTHROPIC_API_KEY" not in passed and "RENAMED" not in passed


@pytest.mark.parametrize("name", ["GITLAB_TOKEN", "CI_JOB_TOKEN", "MY_SERVICE_API_KEY", "npm_config__authToken",
                                  "AZURE_CLIENT_SECRET", "GOOGLE_APPLICATION_CREDENTIALS", "VAULT_TOKEN"])
def test_credential_names(name: str) -> None:
    assert is_credential(name, "x")


@pytest.mark.parametrize("name", ["PATH", "HOME", "TERM", "KEYTIMEOUT", "XAUTHORITY", "TOKENIZERS_PARALLELISM",
                                  "PYTHONPATH", "VIRTUAL_ENV"])
def test_ordinary_names(name: str) -> None:
    assert not is_credential(name, "/usr/bin")


def test_the_ljtui_command_withdraws_the_key_and_no_command_can_read_it(tmp_path: Path) -> None:
    """End to end: ``ljtui run`` with a model whose bash command hunts for the key in its environment, its parent's
    and in every process it can see (ljtui itself where no pid namespace hides it); the pattern is written so that
    the command's own text, in its processes' command lines, does not match it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    hunt = ("env | grep -c 'sk-ant-tes[t]'; tr '\\0' '\\n' < /proc/$PPID/environ | grep -c 'sk-ant-tes[t]'; "
            "cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n' | grep -c 'sk-ant-tes[t]'; "
            "head -c 4096 /proc/$PPID/mem | wc -c; echo hunted")
    script = tmp_path / "script.yaml"
    script.write_text(json.dumps({"turns": [{"tool_calls": [{"name": "bash", "input": {"command": hunt}}]},
                                            {"text": "done"}]}))
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    entry = "import sys; from ljtui.cli.main import entry; sys.exit(entry())"
    done = subprocess.run([sys.executable, "-c", entry, "run", "--provider", "scripted", "--script", str(script),
                           "--repo", str(repo), "--allow", "bash", "--json", "hunt for the key"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=repo)
    assert "hunted" in done.stdout, done.stdout + done.stderr
    finished = [json.loads(line) for line in done.stdout.splitlines() if '"tool_call_finished"' in line]
    output = finished[0]["output"]
    assert KEY not in done.stdout and KEY not in done.stderr
    counts = output.split("output (", 1)[1].splitlines()[1:4]
    assert counts == ["0", "0", "0"], output
