"""``ljtui apply`` and ``ljtui review`` on any tool's change: files, standard input and ``--git``, as real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import git

LJTUI = str(Path(sys.executable).with_name("ljtui"))
GREETING = "def greet(name):\n    return 'hello ' + name\n"


def ljtui(repo: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([LJTUI, *args], cwd=repo, capture_output=True, input=stdin, timeout=60)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def branch_with_changes(repo: Path) -> str:
    """A branch ``agent`` that edits app.py, adds a file, removes README.md and makes a script executable;
    the working tree is back on main."""
    git(repo, "checkout", "-q", "-b", "agent")
    (repo / "app.py").write_text(GREETING.replace("'hello '", "'hi '") + "\n\ndef bye():\n    return 'bye'\n",
                                 encoding="utf-8")
    (repo / "docs").mkdir()
    (repo / "docs" / "new.md").write_text("# New\n", encoding="utf-8")
    git(repo, "rm", "-q", "README.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent work")
    git(repo, "checkout", "-q", "main")
    return git(repo, "diff", "main..agent")


def tree(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*"))
            if p.is_file() and ".git" not in p.parts and ".agent" not in p.parts}


def agent_tree(repo: Path) -> dict[str, bytes]:
    git(repo, "checkout", "-q", "agent")
    try:
        return tree(repo)
    finally:
        git(repo, "checkout", "-q", "main")


def test_a_git_diff_on_standard_input_applies_as_git_would_and_undoes(git_repo: Path) -> None:
    diff = branch_with_changes(git_repo)
    wanted, before = agent_tree(git_repo), tree(git_repo)
    done = ljtui(git_repo, "apply", "-", "--yes", "--json", stdin=diff.encode())
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "done"
    assert sorted(result["files"]) == ["README.md", "app.py", "docs/new.md"]
    assert tree(git_repo) == wanted
    undone = ljtui(git_repo, "undo", "--yes")
    assert undone.returncode == 0, undone.stderr
    assert tree(git_repo) == before


def test_git_range_and_one_branch_against_the_working_tree(git_repo: Path) -> None:
    branch_with_changes(git_repo)
    wanted = agent_tree(git_repo)
    preview = ljtui(git_repo, "apply", "--git", "main..agent", "--dry-run")
    assert preview.returncode == 0, preview.stderr
    assert "+++ b/docs/new.md" in preview.stdout and "-    return 'hello ' + name" in preview.stdout
    done = ljtui(git_repo, "apply", "--git", "agent", "--yes")
    assert done.returncode == 0, done.stderr
    assert tree(git_repo) == wanted
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "took the agent's work")
    again = ljtui(git_repo, "apply", "--git", "agent", "--yes")
    assert again.returncode == 2
    assert "git diff -R agent is empty: the working tree already matches it" in again.stderr


def test_the_format_can_be_named_and_an_aider_reply_applies(git_repo: Path) -> None:
    reply = ("app.py\n```python\n<<<<<<< SEARCH\n    return 'hello ' + name\n=======\n"
             "    return 'howdy ' + name\n>>>>>>> REPLACE\n```\n")
    (git_repo.parent / "reply.md").write_text(reply, encoding="utf-8")
    wrong = ljtui(git_repo, "apply", str(git_repo.parent / "reply.md"), "--format", "codex", "--yes")
    assert wrong.returncode == 2 and "MalformedPatch" in wrong.stderr
    done = ljtui(git_repo, "apply", str(git_repo.parent / "reply.md"), "--yes")
    assert done.returncode == 0, done.stderr
    assert "howdy" in (git_repo / "app.py").read_text(encoding="utf-8")


def test_a_stale_hunk_is_named_with_its_nearest_place_and_nothing_is_written(git_repo: Path) -> None:
    diff = branch_with_changes(git_repo)
    (git_repo / "app.py").write_text(GREETING.replace("name\n", "name.title()\n"), encoding="utf-8")
    before = tree(git_repo)
    done = ljtui(git_repo, "apply", "-", "--yes", "--json", stdin=diff.encode())
    assert done.returncode == 2
    [failed] = [f for f in json.loads(done.stdout)["failed"] if f["entry_id"] == "app.py"]
    assert "the hunk's old lines do not occur in app.py" in failed["reason"]
    assert tree(git_repo) == before


def test_bad_inputs_are_refused_by_name_with_nothing_written(git_repo: Path) -> None:
    before = tree(git_repo)
    cases = {
        ("apply", "--yes"): "name one change: a file, - for standard input, or --git A..B",
        ("apply", "x.diff", "--git", "HEAD", "--yes"): "name one change",
        ("apply", "--git=--output=/tmp/x", "--yes"): "give a commit range (A..B) or one commit",
        ("apply", "--git", "nosuchref..main", "--yes"): "git diff nosuchref..main failed",
        ("apply", "-", "--yes"): "standard input is empty: nothing to review",
        ("review", "--git", "HEAD..HEAD"): "git diff HEAD..HEAD is empty: the two sides are the same",
        ("review", "missing.diff"): "ljtui review: cannot open missing.diff: no such file",
    }
    for args, message in cases.items():
        done = ljtui(git_repo, *args, stdin=b"")
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
    binary = (b"diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\n"
              b"Binary files a/logo.png and b/logo.png differ\n")
    refused = ljtui(git_repo, "apply", "-", "--yes", stdin=binary)
    assert refused.returncode == 2 and "BinaryPatch" in refused.stderr and "logo.png" in refused.stderr
    prose = ljtui(git_repo, "apply", "-", "--yes", stdin=b"just some words\n")
    assert prose.returncode == 2 and "none of the formats ljtui reads" in prose.stderr
    assert tree(git_repo) == before
