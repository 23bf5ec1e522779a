from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import ljtui.core
from ljtui.core.repo import current_branch
from tests.conftest import git

ROOT = Path(__file__).resolve().parents[2]


def test_importing_every_core_module_never_imports_textual() -> None:
    modules = [m.name for m in pkgutil.walk_packages(ljtui.core.__path__, "ljtui.core.")]
    assert "ljtui.core.engine" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'anthropic', 'openai'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    textual = [m for m in out.stdout.strip().split(",") if m.startswith("textual")]
    assert textual == [], f"core imports textual: {textual}"


def test_engine_and_cli_do_not_load_sdks_at_import() -> None:
    code = (
        "import sys, ljtui.core.engine, ljtui.cli.main\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('anthropic', 'openai', 'textual')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_package_directory_is_packaged() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    mapping = {"core": "ljtui.core", "tui": "ljtui.tui", "cli": "ljtui.cli", "themes": "ljtui.themes"}
    for folder, name in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            package = ".".join([name, *rel.parts])
            assert f'"{package}"' in text, f"{package} is missing from [tool.setuptools] packages"


def test_current_branch(git_repo: Path, tmp_path: Path) -> None:
    assert current_branch(git_repo) == "main"
    git(git_repo, "checkout", "-q", "-b", "feature/x")
    assert current_branch(git_repo) == "feature/x"
    sha = git(git_repo, "rev-parse", "HEAD").strip()
    git(git_repo, "checkout", "-q", "--detach")
    assert current_branch(git_repo) == sha[:7]
    assert current_branch(tmp_path / "not-a-repo") is None
    worktree = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", str(worktree), "-b", "wt-branch")
    assert current_branch(worktree) == "wt-branch"


def test_the_app_module_defers_engine_work_until_it_is_needed() -> None:
    code = (
        "import sys, ljtui.tui.app\n"
        "heavy = ('anthropic', 'openai', 'markdown_it', 're2', 'pygments', 'watchfiles', "
        "'ljtui.core.edits', 'ljtui.core.planner', 'ljtui.core.engine', 'ljtui.core.review')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
