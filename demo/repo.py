"""The demo's repository: a fresh copy of the bundled sample project, committed once.

Made before the app starts, in a new folder under the system's temporary
directory, so the demo never writes anywhere the user keeps work. git runs
with the user's and the system's git configuration switched off (no hooks,
no signing, no identity needed) and without provider keys in its
environment.

The copy is trusted while the demo runs: its playbooks become instructions
to the model, and ljtui offers a repository's playbooks only when the user
trusts it. Nothing in the copy needs trust but what the demo itself makes
there, and :func:`forget_demo_repo` takes the trust back when the demo ends.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ljtui.core.childenv import child_env
from ljtui.core.git import GitRefused, run_git
from ljtui.core.trust import TrustStore

PACKAGE_DIR = Path(__file__).resolve().parent
SAMPLE_DIR = PACKAGE_DIR / "sample-project"
"""The bundled sample project."""
SCRIPT_PATH = PACKAGE_DIR / "script.yaml"
"""The recorded model of the demo."""
PROJECT_NAME = "wordstats"
"""The sample project's name, also the name of its copy's folder."""
TEMP_PREFIX = "ljtui-demo-"
"""Start of the name of the temporary folder that holds the copy."""
NOT_COPIED = ("__pycache__", "*.pyc")
"""Files of the bundle that are not part of the project (an install may have compiled it)."""
BRANCH = "main"
COMMIT_MESSAGE = "wordstats, before the demo"
GIT_TIMEOUT_SECONDS = 60.0
"""Longest one git command may take."""
GIT_ENV = {
    "GIT_AUTHOR_NAME": "ljtui demo",
    "GIT_AUTHOR_EMAIL": "demo@ljtui.invalid",
    "GIT_COMMITTER_NAME": "ljtui demo",
    "GIT_COMMITTER_EMAIL": "demo@ljtui.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}
"""Added to git's environment: a fixed identity, and no user or system configuration."""


@dataclass(frozen=True)
class DemoRepo:
    """The demo's copy of the sample project.

    Attributes:
        root: the copy, a git repository with one commit.
        script: the recorded model to replay.
    """

    root: Path
    script: Path = SCRIPT_PATH

    @property
    def project(self) -> str:
        """The sample project's name."""
        return self.root.name


@dataclass(frozen=True)
class DemoFailure:
    """Why the demo's repository could not be made, in a sentence for the user."""

    message: str


def create_demo_repo(parent: Path | None = None, *, git: str = "git",
                     env: Mapping[str, str] | None = None) -> DemoRepo | DemoFailure:
    """Copy the sample project into a new temporary folder, commit it and trust it.

    Args:
        parent: where the temporary folder is made (default: the system's temporary directory).
        git: the git executable.
        env: the environment the user's trust list is found from (default: the process's).

    Returns:
        The copy, or why it could not be made (nothing is left behind then).
    """
    try:
        holder = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=parent))
    except OSError as exc:
        where = parent or tempfile.gettempdir()
        return DemoFailure(f"cannot make a temporary folder in {where}: {exc.strerror or exc}")
    root = holder / PROJECT_NAME
    try:
        shutil.copytree(SAMPLE_DIR, root, ignore=shutil.ignore_patterns(*NOT_COPIED))
    except OSError as exc:
        shutil.rmtree(holder, ignore_errors=True)
        return DemoFailure(f"cannot copy the sample project to {root}: {getattr(exc, 'strerror', None) or exc}")
    problem = _commit(root, git) or _trust(root, env)
    if problem is not None:
        shutil.rmtree(holder, ignore_errors=True)
        return DemoFailure(problem)
    return DemoRepo(root)


def forget_demo_repo(demo: DemoRepo, env: Mapping[str, str] | None = None) -> None:
    """Take back the trust the demo gave its copy (the copy itself is kept for the user to look at)."""
    try:
        TrustStore.for_env(env).revoke(demo.root)
    except OSError:
        pass  # the entry names a folder in the temporary directory, which the system cleans


def _trust(root: Path, env: Mapping[str, str] | None) -> str | None:
    """Record ``root`` as trusted for the demo's session; why not, or ``None``."""
    store = TrustStore.for_env(env)
    try:
        store.trust(root, time.time())
    except OSError as exc:
        return f"cannot record in {store.path} that the demo's repository is trusted: {exc.strerror or exc}"
    return None


def _commit(root: Path, git: str) -> str | None:
    """Make ``root`` a git repository with every file in one commit; why not, or ``None``."""
    for args in (("init", "-q", "-b", BRANCH), ("add", "-A"), ("commit", "-q", "--no-verify", "-m", COMMIT_MESSAGE)):
        problem = _git(root, git, args)
        if problem is not None:
            return problem
    return None


def _git(root: Path, git: str, args: tuple[str, ...]) -> str | None:
    shown = f"git {args[0]}"
    try:
        done = run_git(args, root, env={**child_env(), **GIT_ENV}, timeout=GIT_TIMEOUT_SECONDS, executable=git)
    except FileNotFoundError:
        return f"the demo needs git to make its sample project a repository, and {git} was not found"
    except subprocess.TimeoutExpired:
        return f"{shown} did not finish within {GIT_TIMEOUT_SECONDS:.0f} s"
    except OSError as exc:
        return f"cannot run {git}: {exc.strerror or exc}"
    except GitRefused as exc:
        return f"{shown} was not run: {exc}"
    if done.returncode != 0:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        return f"{shown} failed in {root} (exit {done.returncode}): {last}"
    return None
