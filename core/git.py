"""ljtui's own ``git`` calls: never a command from the repository's settings.

A repository's ``.git/config`` can name programs that git runs on its own:
``core.fsmonitor`` runs on ``git status`` and ``git ls-files``, hooks run
when the index or a ref is written (``post-index-change``,
``reference-transaction``, the commit hooks), and a ``filter.<name>``
driver (``clean``, ``smudge``, ``process``) runs on every file a
``.gitattributes`` line gives it. A cloned or unpacked repository can set
any of them, so :func:`run_git` runs git with all of them switched off:

* ``-c core.fsmonitor=false`` and ``-c core.hooksPath=/dev/null`` (no hook
  file can exist below ``/dev/null``);
* every filter driver the repository's own config (its ``local`` and
  ``worktree`` scopes, includes followed) names is overridden empty and
  not required, so git stores and compares the bytes as they are. The
  names are read first with ``git config --get-regexp``, which only reads
  config files. The user's own config (global, system, ``-c`` in the
  environment) is the user's choice and is left alone;
* ``--no-pager``, and ``--no-ext-diff --no-textconv`` for the commands that
  show diffs (``diff.external`` cannot be set empty: git would then try to
  run an empty command);
* ``--no-optional-locks``: a status never rewrites the user's index.

git runs without keys or credentials in its environment
(:func:`~ljtui.core.childenv.child_env`), never prompts
(``GIT_TERMINAL_PROMPT=0``, stdin from ``/dev/null``) and is killed at its
time bound. Settings that only act on the network, on merges or on an
editor are not touched: ljtui never fetches, merges or opens an editor.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Mapping, Sequence

from ljtui.core.childenv import child_env

GIT_TIMEOUT_S = 30.0
"""Default bound on one git call."""
CONFIG_TIMEOUT_S = 10.0
"""Bound on reading the repository's filter names."""
NO_HOOKS = os.devnull
"""``core.hooksPath``: a file, so no hook can exist below it."""
FIXED_SETTINGS: tuple[tuple[str, str], ...] = (("core.fsmonitor", "false"), ("core.hooksPath", NO_HOOKS))
"""Settings that name a program git would run by itself, switched off for every call."""
FILTER_COMMANDS = ("clean", "smudge", "process")
"""The keys of a filter driver that name a program."""
REPOSITORY_SCOPES = frozenset({"local", "worktree"})
"""Config scopes a repository can write (its ``.git/config`` and ``config.worktree``, with their includes)."""
DIFF_COMMANDS = frozenset({"diff", "log", "show"})
"""Subcommands that can run an external diff or a textconv program unless told not to."""
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv")
GLOBAL_FLAGS = ("--no-pager", "--no-optional-locks")
EXIT_USAGE = 129
"""git's exit status for an option it does not know (``--show-scope`` before git 2.26)."""


class GitRefused(subprocess.SubprocessError):
    """git was not run: the repository's settings could not be read or cannot be switched off.

    A subclass of :class:`subprocess.SubprocessError`, so callers that treat
    a failing git as "no git" fail closed the same way.
    """


def run_git(args: Sequence[str], cwd: Path, *, options: Sequence[str] = (), env: Mapping[str, str] | None = None,
            timeout: float = GIT_TIMEOUT_S, executable: str = "git") -> subprocess.CompletedProcess[bytes]:
    """Run ``git OPTIONS ARGS`` in ``cwd`` with the repository's programs switched off.

    Args:
        args: the subcommand and its arguments (``["ls-files", "-z"]``).
        cwd: where git runs (it finds the repository from there).
        options: git's own options before the subcommand (``--git-dir``, ``--literal-pathspecs`` …).
        env: the environment, already without keys or credentials (default :func:`child_env`).
        timeout: seconds before git is killed.
        executable: the git program.

    Returns:
        The finished process, output as bytes; a non-zero exit is not an exception.

    Raises:
        OSError: git could not be started.
        subprocess.TimeoutExpired: git did not finish in time.
        GitRefused: the repository's filter names could not be read or passed on.
    """
    environment = _environment(env)
    settings = [*FIXED_SETTINGS, *filter_overrides(cwd, options, environment, executable)]
    command = [executable, *GLOBAL_FLAGS, *_as_flags(settings), *options, *_with_diff_flags(args)]
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=timeout, check=False)


def filter_overrides(cwd: Path, options: Sequence[str] = (), env: Mapping[str, str] | None = None,
                     executable: str = "git") -> list[tuple[str, str]]:
    """``(key, value)`` settings that switch off every filter driver the repository's config names.

    Raises:
        GitRefused: the config could not be read, or a name cannot be passed to ``git -c``.
    """
    return [(f"filter.{name}.{key}", value) for name in repository_filters(cwd, options, env, executable)
            for key, value in (*((command, "") for command in FILTER_COMMANDS), ("required", "false"))]


def repository_filters(cwd: Path, options: Sequence[str] = (), env: Mapping[str, str] | None = None,
                       executable: str = "git") -> list[str]:
    """The filter driver names the repository's own config defines, sorted.

    Raises:
        GitRefused: as :func:`filter_overrides`.
    """
    environment = _environment(env)
    base = [executable, *GLOBAL_FLAGS, *_as_flags(FIXED_SETTINGS), *options, "config", "--null"]
    done = _read_config([*base, "--show-scope", "--get-regexp", r"^filter\."], cwd, environment)
    scoped = True
    if done.returncode == EXIT_USAGE:  # an old git: every filter found counts as the repository's
        done, scoped = _read_config([*base, "--get-regexp", r"^filter\."], cwd, environment), False
    if done.returncode == 1 and not done.stdout:
        return []
    if done.returncode != 0:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        raise GitRefused(f"git cannot read the repository's settings (exit {done.returncode}: {last[:200]})")
    names = set()
    for scope, key in _config_keys(done.stdout, scoped):
        if scope in REPOSITORY_SCOPES and key.count(".") >= 2:
            names.add(key[len("filter."):key.rindex(".")])
    bad = sorted(n for n in names if "=" in n or "\n" in n)
    if bad:
        raise GitRefused(f"the repository's git config names a filter git -c cannot switch off ({bad[0]!r})")
    return sorted(names)


def _read_config(command: list[str], cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(command, cwd=cwd, env=dict(env), capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=CONFIG_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise GitRefused("git did not read the repository's settings in time") from None


def _config_keys(output: bytes, scoped: bool) -> list[tuple[str, str]]:
    """``(scope, key)`` of each entry of ``git config --null [--show-scope] --get-regexp`` output."""
    fields = output.decode("utf-8", "surrogateescape").split("\0")
    found: list[tuple[str, str]] = []
    step = 2 if scoped else 1
    for index in range(0, len(fields) - step + 1, step):
        scope = fields[index] if scoped else "local"
        key = fields[index + step - 1].split("\n", 1)[0]
        if key.startswith("filter."):
            found.append((scope, key))
    return found


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    environment = dict(child_env() if env is None else env)
    environment["GIT_TERMINAL_PROMPT"] = "0"
    return environment


def _as_flags(settings: Sequence[tuple[str, str]]) -> list[str]:
    return [flag for key, value in settings for flag in ("-c", f"{key}={value}")]


def _with_diff_flags(args: Sequence[str]) -> list[str]:
    if args and args[0] in DIFF_COMMANDS:
        return [args[0], *DIFF_FLAGS, *args[1:]]
    return list(args)
