"""A command may not leave git settings that run programs later: ``ljtui run`` with a scripted model whose
command (a plain ``python3`` script, which no pattern flags) plants one kind of setting in the repository.
Headless, the change is put back and reported; the user's next ordinary ``git commit`` runs nothing. The same
plant made outside ljtui makes that commit run it, so the plant is live."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import git
from tests.nested_git import marker_script, ran

TIMEOUT = 90
PLANT = '''\
import os, subprocess, sys
kind, tools = sys.argv[1], sys.argv[2]
def append(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a") as f:
        f.write(text)
def hook(path):
    append(path, "#!/bin/sh\\n" + tools + "/mark.sh\\n")
    os.chmod(path, 0o755)
if kind == "hook":
    hook(".git/hooks/pre-commit")
elif kind == "fsmonitor":
    append(".git/config", "[core]\\n\\tfsmonitor = " + tools + "/mark.sh\\n")
elif kind == "filter":
    append(".git/config", '[filter "x"]\\n\\tclean = ' + tools + "/filter.sh\\n")
    append(".git/info/attributes", "* filter=x\\n")
elif kind == "include":
    append("conf/extra.cfg", '[filter "y"]\\n\\tclean = ' + tools + "/filter.sh\\n")
    append(".gitattributes", "* filter=y\\n")
elif kind == "hooks_path":
    append(".git/config", "[core]\\n\\thooksPath = .hooks\\n")
    hook(".hooks/pre-commit")
elif kind == "nested":
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x")
    os.makedirs("sub")
    append("sub/data.txt", "nested\\n")
    append("sub/.gitattributes", "* filter=z\\n")
    subprocess.run(["git", "init", "-q", "sub"], check=True, env=env)
    subprocess.run(["git", "-C", "sub", "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", "sub", "commit", "-qm", "n"], check=True, env=env)
    append("sub/.git/config", '[filter "z"]\\n\\tclean = ' + tools + "/filter.sh\\n")
    subprocess.run(["git", "add", "sub"], check=True, env=env)
    append("sub/data.txt", "changed\\n")
print("planted", kind)
'''
KINDS = ("hook", "fsmonitor", "filter", "include", "hooks_path", "nested")


def setup(repo: Path, tools: Path) -> Path:
    """Marker programs in ``tools`` and the plant script; an include file the repository already uses."""
    tools.mkdir()
    marker = tools / "ran.log"
    marker_script(tools / "mark.sh", marker, "ran")
    marker_script(tools / "filter.sh", marker, "filter", passthrough=True)
    (tools / "plant.py").write_text(PLANT, encoding="utf-8")
    (repo / "conf").mkdir()
    (repo / "conf" / "extra.cfg").write_text("# settings kept beside the code\n", encoding="utf-8")
    git(repo, "add", "conf")
    git(repo, "commit", "-q", "-m", "conf")
    git(repo, "config", "include.path", "../conf/extra.cfg")
    return marker


def user_commit(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """The user's own ``git commit -a`` afterwards, with no ljtui in sight."""
    (repo / "app.py").write_text("def greet(name):\n    return 'hey ' + name\n", encoding="utf-8")
    return subprocess.run(["git", "commit", "-qam", "mine"], cwd=repo, capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
                               "GIT_COMMITTER_EMAIL": "u@x"})


def run_plant(repo: Path, tools: Path, kind: str) -> subprocess.CompletedProcess[str]:
    command = f"python3 {tools / 'plant.py'} {kind} {tools}"
    script = tools / "model.yaml"
    script.write_text(yaml.safe_dump({"turns": [{"tool_calls": [{"name": "bash", "input": {"command": command}}]},
                                                {"text": "done"}]}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", "run", "--provider", "scripted", "--script",
                           str(script), "--allow", "bash", "--json", "--repo", str(repo), "set up the hooks"],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("kind", KINDS)
def test_a_planted_setting_is_put_back_and_the_users_commit_runs_nothing(git_repo: Path, tmp_path: Path,
                                                                         kind: str) -> None:
    tools = tmp_path / "tools"
    marker = setup(git_repo, tools)
    done = run_plant(git_repo, tools, kind)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [result] = [e for e in events if e["kind"] == "tool_call_finished"]
    assert "git settings put back" in result["summary"], result
    assert "A process changed git settings that run programs" in done.stderr
    assert any(e["kind"] == "notice" and e["message"].startswith("Put back the git settings") for e in events)
    home = tmp_path / "home"
    home.mkdir()
    committed = user_commit(git_repo, home)
    assert ran(marker) == "", committed.stderr
    if kind != "nested":
        subprocess.run([sys.executable, str(tools / "plant.py"), kind, str(tools)], cwd=git_repo, check=True,
                       capture_output=True)
        user_commit(git_repo, home)
        assert ran(marker) != ""
