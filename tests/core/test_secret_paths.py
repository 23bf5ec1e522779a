"""Secret files stay out of every read path: planner and agent tools, the outline, the project context.

The repositories are real: ``git init`` with a remote whose URL carries a
token, a worktree config, a linked worktree, a nested repository, a link to
``.git`` and a ``.GIT`` folder; the secret files named by each deny rule
sit at the root and in a subfolder, next to look-alikes that stay readable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.agent.project import gather, project_notes, system_prompt
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.planner import grep as grep_module
from ljtui.core.planner import grep_rg
from ljtui.core.planner.grep import find_rg
from ljtui.core.planner.tools import SECRET_ENTRY_NOTE, ReadOnlyTools
from ljtui.core.ports import ListSink
from ljtui.core.secret_files import SecretFiles
from tests.conftest import git

TOKEN = "ghp_FAKE0123456789"
"""A fake GitHub token planted in every secret file; it must never reach a model."""
URL = f"https://u:{TOKEN}@example.com/x.git"
ENGINES = ("re2", "rg")
HOOK_MARKER = "steal_marker_from_hooks"
"""A definition in a Python file inside ``.git``: never outlined."""

GIT_SECRETS = (".git/config", ".git/config.worktree", ".git/worktrees/wt/config.worktree", "sub/.git/config",
               ".GIT/config")
"""The token-holding git config files of :func:`leaky`, by their own paths."""
GIT_SECRET_ALIASES = ("./.git/config", ".git//config.worktree", "gitlink/config", "gitlink/config.worktree",
                      "./sub/.git/config", "gitlink/worktrees/wt/config.worktree", ".git/./config")
"""Other spellings of the same files: ``./``, doubled slashes, a link to ``.git``."""
GREP_FOLDERS = {".git": 3, ".git/": 3, "./.git": 3, "gitlink": 3, ".git/worktrees": 1, "sub/.git": 1,
                ".GIT": 1, ".": 1, "sub": 0}
"""Folders searched, with how many secret files each search must leave out (walks skip ``.git``
folders below the searched one; ``.GIT`` is another name on a case-sensitive file system)."""
LISTED = {".git": ("config", "config.worktree"), "gitlink": ("config", "config.worktree"),
          ".git/worktrees/wt": ("config.worktree",), "sub/.git": ("config",), ".GIT": ("config",)}

NEW_SECRET_NAMES = (
    "id_ecdsa", "id_ecdsa.pub", "id_dsa", "id_ed25519_sk", "id_ecdsa_sk", "yubikey_sk", ".git-credentials",
    "cert.p12", "store.PFX", "putty.ppk", ".pgpass", "kubeconfig", "kubeconfig.yaml", "prod.kubeconfig",
    "terraform.tfvars", "prod.auto.tfvars", "vars.tfvars.json", ".htpasswd", "service-account.json",
    "my-service_account-key.json", "serviceAccount.json", "gcp-sa-key.json", "deploy_sa_key.json",
    "client_secret_1234.apps.googleusercontent.com.json",
)
"""File names each new default rule makes secret (matched at any depth)."""
NEW_SECRET_FOLDER_FILES = (".kube/config", ".docker/config.json", ".git/config.worktree",
                           ".git/worktrees/wt/config.worktree", ".KUBE/Config")
"""Files secret in the folder they sit in."""
LOOK_ALIKES = (
    "config.json", "keys.py", "tasks.p12.md", "p12.txt", "kubeconfig.go", "kubeconfig_test.go", "variables.tf",
    "tfvars.md", "service-account.yaml", "service_account.py", "accounts.json", "docker/config.json",
    ".docker/daemon.json", "kube/config", ".kube/cache/config.json", "config.worktree", "worktree/config",
    "task.md", "mask", "id.py", ".htaccess", "client.json",
)
"""Names close to secret ones that stay readable."""
DEEP = "deep/er"


def git_config_text(rel: str) -> str:
    return f'[remote "origin"]\n\turl = {URL}\n' if "config" in rel.lower() else f"TOKEN={TOKEN}\n"


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    """A git repository whose every git config file holds a token, and look-alike folders."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# leaky\n")
    (repo / "app.py").write_text("def greet():\n    return 'hi'\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", URL)
    git(repo, "config", "extensions.worktreeConfig", "true")
    git(repo, "config", "--worktree", "remote.origin.pushurl", URL)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "initial")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    git(tmp_path / "wt", "config", "--worktree", "remote.origin.pushurl", URL)
    nested = repo / "sub"
    nested.mkdir()
    (nested / "lib.py").write_text("def helper():\n    return 1\n")
    git(nested, "init", "-q")
    git(nested, "remote", "add", "origin", URL)
    (repo / "gitlink").symlink_to(".git")
    (repo / ".GIT").mkdir()
    (repo / ".GIT" / "config").write_text(git_config_text("config"))
    (repo / ".git" / "hooks" / "steal.py").write_text(f"def {HOOK_MARKER}():\n    return 0\n")
    for rel in GIT_SECRETS:
        assert TOKEN in (repo / rel).read_text(), rel
    return repo


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def engine_in(repo: Path, allow: list[str] | None = None) -> Engine:
    config = Config()
    config.security.allow_secret_files = list(allow or [])
    return Engine(config, ListSink(), repo_root=repo, clock=FixedClock())


async def call(engine: Engine, tool: str, **args: object):
    return await engine.tools.call(tool, args, engine.tool_context(1, "c1"))


def secret_note(count: int) -> str:
    return f"[{count} secret {'file was' if count == 1 else 'files were'} skipped, nothing from"


# --- git config files, through every planner tool


@pytest.mark.parametrize("path", GIT_SECRETS + GIT_SECRET_ALIASES)
def test_planner_read_file_refuses_every_git_config(leaky: Path, path: str) -> None:
    out = ReadOnlyTools(leaky).read_file(path)
    assert not out.ok and TOKEN not in out.content and "looks like a secret file" in out.content


@pytest.mark.parametrize("path", GIT_SECRETS + GIT_SECRET_ALIASES)
def test_planner_grep_on_a_git_config_is_refused(leaky: Path, path: str, engine: str) -> None:
    out = ReadOnlyTools(leaky, grep_engine=engine).grep(TOKEN, path)
    assert not out.ok and TOKEN not in out.content and "looks like a secret file" in out.content


@pytest.mark.parametrize("folder", sorted(GREP_FOLDERS))
def test_planner_grep_in_a_folder_never_searches_a_git_config(leaky: Path, folder: str, engine: str) -> None:
    out = ReadOnlyTools(leaky, grep_engine=engine).grep("u:ghp|remote|url", folder)
    assert out.ok, out.content
    assert TOKEN not in out.content
    count = GREP_FOLDERS[folder]
    assert (secret_note(count) in out.content) if count else ("secret" not in out.content)


def test_planner_grep_in_dot_git_still_finds_other_files(leaky: Path, engine: str) -> None:
    out = ReadOnlyTools(leaky, grep_engine=engine).grep("ref: refs/heads/main", ".git")
    assert out.ok and ".git/HEAD:1: ref: refs/heads/main" in out.content


def test_ripgrep_walks_each_folder_once_and_is_never_given_a_file(leaky: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    real = find_rg()
    assert real is not None
    log = tmp_path / "rg-argv.log"
    wrapper = tmp_path / "rg-wrapper"
    wrapper.write_text(f'#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done >> "{log}"\n'
                       f'echo ==== >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(grep_module, "find_rg", lambda: str(wrapper))
    folders = (".git", "gitlink", "sub/.git", ".", ".GIT")
    for folder in folders:
        out = ReadOnlyTools(leaky, grep_engine="rg").grep("url|remote|ref", folder)
        assert out.ok and TOKEN not in out.content, folder
    runs = [run.strip("\n").split("\n") for run in log.read_text().split("====\n") if run.strip()]
    assert [run[run.index("--") + 1:] for run in runs] == [[".git"], [".git"], ["sub/.git"], ["."], [".GIT"]]
    exclusion = f"!{grep_rg.one_glob(SecretFiles().globs())}"
    assert all("--json" in run and exclusion in run and "--files" not in run for run in runs)


def test_ripgrep_over_several_runs_keeps_path_order_the_hit_limit_and_the_policy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(30):
        (tmp_path / f"d{n:02}").mkdir()
        (tmp_path / f"d{n:02}" / "a.txt").write_text("hit\n" * 5)
        (tmp_path / f"d{n:02}" / ".env").write_text(f"hit {TOKEN}\n")
    monkeypatch.setattr(grep_rg, "RG_BATCH_ARG_BYTES", 40)
    assert len(list(grep_rg.batches([f"d0{n}/.env" for n in range(10)], 40))) == 3
    found = grep_module.search("hit", tmp_path, secrets=SecretFiles.allowing(["d0*/.env"]), engine="rg")
    assert found.engine == "rg" and found.truncated and not found.timed_out
    allowed = [(f"d{n:02}/{name}", line) for n in range(10) for name, lines in ((".env", 1), ("a.txt", 5))
               for line in range(1, lines + 1)]
    assert [(h.path.relative_to(tmp_path).as_posix(), h.line) for h in found.hits] == allowed + [
        (f"d{n:02}/a.txt", line) for n in range(10, 18) for line in range(1, 6)]
    assert found.secret_files == 20


@pytest.mark.parametrize("folder", sorted(LISTED))
def test_planner_list_dir_marks_git_configs(leaky: Path, folder: str) -> None:
    lines = ReadOnlyTools(leaky).list_dir(folder).content.splitlines()
    for name in LISTED[folder]:
        assert f"{name}  {SECRET_ENTRY_NOTE}" in lines, (folder, name, lines)


# --- the agent's tools and the system prompt


async def test_agent_read_tools_never_show_a_git_config(leaky: Path) -> None:
    engine = engine_in(leaky)
    for path in GIT_SECRETS + GIT_SECRET_ALIASES:
        out = await call(engine, "read_file", path=path)
        assert not out.ok and TOKEN not in out.content, path
    for folder, count in GREP_FOLDERS.items():
        out = await call(engine, "grep_files", pattern="ghp_|url", path=folder)
        assert out.ok and TOKEN not in out.content, folder
        assert (secret_note(count) in out.content) if count else ("secret" not in out.content), folder
    for folder, names in LISTED.items():
        lines = (await call(engine, "list_files", path=folder)).content.splitlines()
        assert all(f"{name}  {SECRET_ENTRY_NOTE}" in lines for name in names), folder


async def test_agent_outline_tools_never_open_secret_or_git_files(leaky: Path) -> None:
    (leaky / "id_ecdsa_tool.py").write_text(f"def ecdsa_marker(key='{TOKEN}'):\n    pass\n")
    (leaky / DEEP).mkdir(parents=True)
    (leaky / DEEP / "credentials_sk.py").write_text("def deep_marker():\n    pass\n")
    engine = engine_in(leaky)
    for name in (HOOK_MARKER, "ecdsa_marker", "deep_marker"):
        found = await call(engine, "find_symbol", name=name)
        assert found.ok and found.content.startswith("no definition named"), (name, found.content)
    whole = await call(engine, "get_outline")
    assert whole.ok and "greet" in whole.content and TOKEN not in whole.content
    for path in (".git", "gitlink", ".git/hooks"):
        view = await call(engine, "get_outline", path=path)
        assert HOOK_MARKER not in view.content, path
    for path in (".git/config", "id_ecdsa_tool.py", f"{DEEP}/credentials_sk.py"):
        view = await call(engine, "get_outline", path=path)
        assert not view.ok and "looks like a secret file" in view.content and TOKEN not in view.content, path


async def test_the_system_prompt_marks_secret_files_and_holds_no_secret(leaky: Path) -> None:
    for name in (".git-credentials", "terraform.tfvars", "id_ecdsa", "kubeconfig"):
        (leaky / name).write_text(f"TOKEN={TOKEN}\n")
    (leaky / "id_ecdsa_tool.py").write_text(f"def ecdsa_marker(key='{TOKEN}'):\n    pass\n")
    (leaky / "AGENTS.md").write_text("Run `make check`.\n")
    prompt = await engine_in(leaky).prepare_context()
    assert TOKEN not in prompt and "ecdsa_marker" not in prompt and "Run `make check`." in prompt
    listing = prompt.split("Top-level entries:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    for name in (".git-credentials", "terraform.tfvars", "id_ecdsa", "kubeconfig", "id_ecdsa_tool.py"):
        assert f"{name} (secret)" in listing, (name, listing)
    assert "README.md" in listing and ".git/" not in listing


def test_project_notes_are_not_read_when_the_policy_calls_them_secret(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text(f"TOKEN={TOKEN}\n")
    policy = SecretFiles(patterns=("agents.md",))
    assert project_notes(tmp_path, policy) == ""
    assert TOKEN not in system_prompt(gather(tmp_path, policy))
    assert TOKEN in project_notes(tmp_path, SecretFiles())


# --- each new deny rule: refused by read, skipped by grep, marked in listings


def secret_rel_paths() -> list[str]:
    names = [*NEW_SECRET_NAMES, *(f"{DEEP}/{n}" for n in NEW_SECRET_NAMES)]
    folders = [rel for rel in NEW_SECRET_FOLDER_FILES if not rel.startswith(".git/")]
    return [*names, *folders, *(f"{DEEP}/{rel}" for rel in folders)]


SECRET_RELS = secret_rel_paths()


@pytest.fixture(scope="module")
def rules_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every new secret file and every look-alike, at the root and in a subfolder, all holding the token."""
    root = tmp_path_factory.mktemp("rules")
    for rel in [*SECRET_RELS, *LOOK_ALIKES, *(f"{DEEP}/{n}" for n in LOOK_ALIKES)]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"TOKEN={TOKEN}\n")
    return root


@pytest.mark.parametrize("rel", [*NEW_SECRET_NAMES, *NEW_SECRET_FOLDER_FILES])
def test_every_new_rule_is_secret_at_any_depth_ignoring_case(rel: str) -> None:
    policy = SecretFiles()
    for path in (rel, f"{DEEP}/{rel}", rel.upper(), f"./{rel}"):
        assert policy.is_secret(path), path


@pytest.mark.parametrize("rel", [*LOOK_ALIKES, ".git/HEAD", ".git/hooks/config.py", "sub/.kube/config/x"])
def test_look_alikes_stay_readable(rel: str) -> None:
    assert not SecretFiles().is_secret(rel) and not SecretFiles().is_secret(f"{DEEP}/{rel}")


@pytest.mark.parametrize("rel", SECRET_RELS)
def test_new_rules_refuse_reads_and_mark_listings(rules_tree: Path, rel: str) -> None:
    tools = ReadOnlyTools(rules_tree)
    out = tools.read_file(rel)
    assert not out.ok and TOKEN not in out.content and "looks like a secret file" in out.content
    folder, _, name = rel.rpartition("/")
    assert f"{name}  {SECRET_ENTRY_NOTE}" in tools.list_dir(folder or ".").content.splitlines()


@pytest.mark.parametrize("rel", SECRET_RELS)
def test_new_rules_refuse_a_grep_of_the_file(rules_tree: Path, rel: str, engine: str) -> None:
    out = ReadOnlyTools(rules_tree, grep_engine=engine).grep(TOKEN, rel)
    assert not out.ok and TOKEN not in out.content


def test_new_rules_leave_secret_files_out_of_a_folder_search(rules_tree: Path, engine: str) -> None:
    out = ReadOnlyTools(rules_tree, grep_engine=engine).grep(TOKEN, ".")
    hits = {line.split(":1:", 1)[0] for line in out.content.splitlines() if ":1: TOKEN=" in line}
    assert hits == {*LOOK_ALIKES, *(f"{DEEP}/{n}" for n in LOOK_ALIKES)}
    assert secret_note(len(SECRET_RELS)) in out.content


@pytest.mark.parametrize("rel", LOOK_ALIKES)
def test_look_alikes_are_read_listed_and_searched(rules_tree: Path, rel: str) -> None:
    tools = ReadOnlyTools(rules_tree)
    assert tools.read_file(rel).ok and tools.read_file(f"{DEEP}/{rel}").ok
    folder, _, name = rel.rpartition("/")
    lines = tools.list_dir(folder or ".").content.splitlines()
    assert any(line.startswith(f"{name}  (") and line.endswith("bytes)") for line in lines), lines


@pytest.mark.parametrize("rel", SECRET_RELS)
def test_the_user_can_allow_each_new_rule(rules_tree: Path, rel: str, engine: str) -> None:
    policy = SecretFiles.allowing([f"/{rel}"])
    tools = ReadOnlyTools(rules_tree, grep_engine=engine, secrets=policy)
    assert tools.read_file(rel).ok
    out = tools.grep(TOKEN, ".")
    assert f"{rel}:1: TOKEN={TOKEN}" in out.content
    still_secret = sum(1 for other in SECRET_RELS if policy.is_secret(other))
    assert still_secret < len(SECRET_RELS) and secret_note(still_secret) in out.content


def test_the_user_can_allow_a_worktree_config(leaky: Path, engine: str) -> None:
    tools = ReadOnlyTools(leaky, grep_engine=engine, secrets=SecretFiles.allowing(["**/config.worktree"]))
    assert tools.read_file(".git/config.worktree").ok and not tools.read_file(".git/config").ok
    out = tools.grep("pushurl", ".git")
    assert ".git/config.worktree:" in out.content and ".git/worktrees/wt/config.worktree:" in out.content
    assert secret_note(1) in out.content


async def test_the_agent_reads_a_file_the_user_allows(leaky: Path) -> None:
    (leaky / "prod.tfvars").write_text(f"token = \"{TOKEN}\"\n")
    allowed = engine_in(leaky, allow=["prod.tfvars"])
    assert TOKEN in (await call(allowed, "read_file", path="prod.tfvars")).content
    assert TOKEN in (await call(allowed, "grep_files", pattern="token", path=".")).content
    assert TOKEN not in (await call(engine_in(leaky), "read_file", path="prod.tfvars")).content
