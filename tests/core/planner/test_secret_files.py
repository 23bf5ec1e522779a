"""Secret files stay private: list_dir marks them, read_file and grep refuse or skip them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.planner.loop import run_planner
from ljtui.core.planner.tools import SECRET_ENTRY_NOTE, ReadOnlyTools
from ljtui.core.secret_files import ALLOW_KEY, DEFAULT_SECRET_PATTERNS, SecretFiles
from tests.conftest import git
from tests.core.planner.helpers import GOOD_PLAN, RecordingClient, action

ENGINES = ["re2", "rg"]
TOKEN = "ghp_s3cr3tT0k3nValue"
"""A value planted in every secret file; it must never reach the model."""

SECRET_FILES = (
    ".env", ".env.local", "config/.ENV.production", "certs/server.pem", "deploy/site.KEY", "id_rsa",
    "home/id_rsa.pub", "keys/id_ed25519", ".npmrc", ".pypirc", ".netrc", "credentials", "aws/credentials.json",
)
PLAIN_FILES = ("env.py", "src/environment.md", "keys.txt", "pem/readme.md", "docs/credentials/README.md")
"""Look-alikes that are not secret: other names, or folders named like a secret file."""


@pytest.fixture
def tree(repo: Path) -> Path:
    for rel in SECRET_FILES + PLAIN_FILES:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(f"TOKEN={TOKEN}\n")
    return repo


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("rel", SECRET_FILES + (".git/config", "vendor/lib/.git/config", ".GIT/CONFIG",
                                                ".git/modules/sub/config"))
def test_policy_flags_secret_names_at_any_depth_ignoring_case(rel: str) -> None:
    assert SecretFiles().is_secret(rel)
    assert SecretFiles().is_secret(f"./{rel}")


@pytest.mark.parametrize("rel", PLAIN_FILES + ("config", "src/config", ".github/config", ".git/HEAD",
                                               ".gitconfig", "src/git/config"))
def test_policy_leaves_other_files_readable(rel: str) -> None:
    assert not SecretFiles().is_secret(rel)


def test_policy_names_the_rule_and_has_the_default_patterns_as_a_constant() -> None:
    assert DEFAULT_SECRET_PATTERNS[0] == ".env*" and SecretFiles().patterns == DEFAULT_SECRET_PATTERNS
    assert SecretFiles().rule_for("a/b/server.pem") == "*.pem"
    assert SecretFiles().rule_for("x/.git/config") == ".git/config"


def test_user_allow_globs_take_files_back() -> None:
    policy = SecretFiles.allowing([".env.example", "deploy/*.key", "  ", 7, None, "/certs/**/*.pem"])
    assert policy.allowed == (".env.example", "deploy/*.key", "certs/**/*.pem")
    assert not policy.is_secret(".env.example") and not policy.is_secret("sub/.ENV.example")
    assert not policy.is_secret("deploy/site.key") and policy.is_secret("deploy/old/site.key")
    assert not policy.is_secret("certs/a/b/server.pem") and not policy.is_secret("certs/server.pem")
    assert policy.is_secret(".env") and policy.is_secret("other/server.pem")


def test_read_file_refuses_secrets_saying_how_to_allow_them(tree: Path) -> None:
    tools = ReadOnlyTools(tree)
    for rel in SECRET_FILES:
        out = tools.read_file(rel)
        assert not out.ok and TOKEN not in out.content, rel
        assert "looks like a secret file" in out.content
        assert ALLOW_KEY in out.content and "~/.config/ljtui/config.yaml" in out.content
    for rel in PLAIN_FILES:
        assert tools.read_file(rel).ok, rel


def test_read_file_refuses_a_real_git_config_with_a_token(git_repo: Path) -> None:
    git(git_repo, "remote", "add", "origin", f"https://user:{TOKEN}@example.invalid/r.git")
    nested = git_repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    git(nested, "remote", "add", "origin", f"https://x:{TOKEN}@example.invalid/lib.git")
    tools = ReadOnlyTools(git_repo)
    for rel in (".git/config", "vendor/lib/.git/config", "./.git//config"):
        out = tools.read_file(rel)
        assert not out.ok and TOKEN not in out.content and "'.git/config'" in out.content, rel
    assert tools.read_file(".git/HEAD").ok


def test_a_link_to_a_secret_is_refused_and_so_is_a_secret_name_linking_elsewhere(tree: Path) -> None:
    (tree / "innocent.txt").symlink_to(tree / ".env")
    (tree / "links").mkdir()
    (tree / "links" / ".env").symlink_to(tree / "README.md")
    tools = ReadOnlyTools(tree)
    assert not tools.read_file("innocent.txt").ok
    assert not tools.read_file("links/.env").ok


def test_list_dir_shows_secret_files_marked_without_size(tree: Path) -> None:
    out = ReadOnlyTools(tree).list_dir(".")
    lines = out.content.splitlines()
    assert f".env  {SECRET_ENTRY_NOTE}" in lines and f".npmrc  {SECRET_ENTRY_NOTE}" in lines
    assert f"credentials  {SECRET_ENTRY_NOTE}" in lines
    assert ReadOnlyTools(tree).list_dir("docs").content.splitlines()[1] == "credentials/"
    assert any(line.startswith("env.py  (") and "bytes" in line for line in lines)
    nested = ReadOnlyTools(tree).list_dir("certs").content.splitlines()
    assert nested[1] == f"server.pem  {SECRET_ENTRY_NOTE}"


def test_grep_skips_secret_files_silently_but_counts_them(tree: Path, engine: str) -> None:
    out = ReadOnlyTools(tree, grep_engine=engine).grep(TOKEN, ".")
    assert out.ok
    hits = sorted(line.split(":", 1)[0] for line in out.content.splitlines() if TOKEN in line and ":1:" in line)
    assert hits == sorted(PLAIN_FILES)
    assert f"[{len(SECRET_FILES)} secret files were skipped, nothing from them shown" in out.content
    assert ALLOW_KEY in out.content


def test_grep_in_a_folder_counts_only_that_folder(tree: Path, engine: str) -> None:
    out = ReadOnlyTools(tree, grep_engine=engine).grep(TOKEN, "certs")
    assert "(no matches)" in out.content and "[1 secret file was skipped, nothing from it shown" in out.content
    clean = ReadOnlyTools(tree, grep_engine=engine).grep(TOKEN, "src")
    assert "secret" not in clean.content


def test_grep_on_a_secret_file_is_refused(tree: Path, engine: str) -> None:
    out = ReadOnlyTools(tree, grep_engine=engine).grep("TOKEN", "certs/server.pem")
    assert not out.ok and TOKEN not in out.content and ALLOW_KEY in out.content


def test_allowed_files_are_read_and_searched(tree: Path, engine: str) -> None:
    tools = ReadOnlyTools(tree, grep_engine=engine, secrets=SecretFiles.allowing([".env.local", "certs/*.pem"]))
    assert tools.read_file(".env.local").ok and tools.read_file("certs/server.pem").ok
    assert not tools.read_file(".env").ok
    out = tools.grep(TOKEN, ".")
    assert ".env.local:1:" in out.content and "certs/server.pem:1:" in out.content
    assert f"[{len(SECRET_FILES) - 2} secret files were skipped, nothing from them shown" in out.content
    listing = tools.list_dir(".").content.splitlines()
    assert any(line.startswith(".env.local  (") and "bytes" in line for line in listing)


async def test_secret_contents_never_reach_the_model_in_a_run(tree: Path) -> None:
    (tree / ".git").mkdir()
    (tree / ".git" / "config").write_text(f'[remote "origin"]\n\turl = https://u:{TOKEN}@example.invalid/r\n')
    replies = [action("read_file", path=".env"), action("read_file", path=".git/config"),
               action("grep", pattern="TOKEN=", path="."), action("grep", pattern="u:", path=".git/config"),
               action("list_dir", path="."), GOOD_PLAN]
    client = RecordingClient(*replies)
    result = await run_planner(client, tree, "double the upload timeout", max_turns=10)
    assert result.ok
    final = client.prompt(len(replies) - 1)
    assert final.count(TOKEN) == len(PLAIN_FILES)  # only the look-alikes that are not secret
    assert "looks like a secret file" in final and ALLOW_KEY in final


async def test_run_planner_takes_the_users_allow_list(tree: Path) -> None:
    client = RecordingClient(action("read_file", path=".env.local"), GOOD_PLAN)
    result = await run_planner(client, tree, "double the upload timeout", allow_secret_files=[".env.local"])
    assert result.ok and TOKEN in client.prompt(1)
