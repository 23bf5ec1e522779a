"""ljtui's own ``git`` calls: never a command from any repository's settings, never inside a nested one.

A repository's ``.git/config`` can name programs that git runs on its own:
``core.fsmonitor`` runs on ``git status`` and ``git ls-files``, hooks run
when the index or a ref is written (``post-index-change``,
``reference-transaction``, the commit hooks), a ``filter.<name>`` driver
(``clean``, ``smudge``, ``process``) runs on every file a
``.gitattributes`` line gives it, and a transport (``ext::`` commands,
``core.sshCommand``, a ``git-remote-*`` helper) runs when a partial clone
fetches a missing object on its own. A nested repository (a submodule, or
any repository committed as a gitlink) has a config of its own, which git
reads when it starts a second git inside it to ask whether it changed. A
cloned or unpacked repository can set any of them, so :func:`run_git` runs
git with all of them switched off:

* ``-c core.fsmonitor=false`` and ``-c core.hooksPath=/dev/null`` (no hook
  file can exist below ``/dev/null``);
* nested repositories are never entered: ``--ignore-submodules=all`` on
  every command that would look inside them (it beats a repository's
  ``submodule.<name>.ignore``, which the config setting
  ``diff.ignoreSubmodules`` does not), with ``submodule.recurse=false``; a
  caller cannot ask for submodules (:class:`ValueError`);
* every filter driver the repository's own config (its ``local`` and
  ``worktree`` scopes, includes followed) names is overridden empty and
  not required, so git stores and compares the bytes as they are. The
  names are read first with ``git config --get-regexp``, which only reads
  config files. The user's own filters (global, system, ``-c`` in the
  environment) are the user's choice and are left alone;
* no transport may run: ``protocol.allow=never``, every
  ``protocol.<name>.allow`` any config names overridden ``never``,
  ``GIT_PROTOCOL_FROM_USER=0`` and ``GIT_NO_LAZY_FETCH=1``, so a partial
  clone reports a missing object instead of fetching it;
* ``--no-pager``, ``log.showSignature=false`` (no signature program), and
  ``--no-ext-diff --no-textconv`` for the commands that show diffs
  (``diff.external`` cannot be set empty: git would then try to run an
  empty command);
* ``--no-optional-locks``: a status never rewrites the user's index.

The settings given with ``-c`` reach every git that git itself starts
(through ``GIT_CONFIG_PARAMETERS``). git runs without keys or credentials in
its environment (:func:`~ljtui.core.childenv.child_env`), never prompts
(``GIT_TERMINAL_PROMPT=0``, stdin from ``/dev/null``) and is killed at its
time bound. Settings that only act on merges or on an editor are not
touched: ljtui never merges or opens an editor.
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
"""Bound on reading the repository's filter and protocol settings."""
NO_HOOKS = os.devnull
"""``core.hooksPath``: a file, so no hook can exist below it."""
FIXED_SETTINGS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", NO_HOOKS),
    ("diff.ignoreSubmodules", "all"),
    ("submodule.recurse", "false"),
    ("status.submoduleSummary", "false"),
    ("protocol.allow", "never"),
    ("log.showSignature", "false"),
)
"""Settings that would make git run a program, enter a nested repository or use a transport, switched off for
every call."""
FIXED_ENV: tuple[tuple[str, str], ...] = (
    ("GIT_TERMINAL_PROMPT", "0"), ("GIT_PROTOCOL_FROM_USER", "0"), ("GIT_NO_LAZY_FETCH", "1"),
)
"""Environment that keeps git from prompting and from fetching what a partial clone lacks."""
FILTER_COMMANDS = ("clean", "smudge", "process")
"""The keys of a filter driver that name a program."""
REPOSITORY_SCOPES = frozenset({"local", "worktree"})
"""Config scopes a repository can write (its ``.git/config`` and ``config.worktree``, with their includes)."""
READ_KEYS = r"^(filter|protocol)\."
"""The config keys read before each call: filter drivers and per-protocol policies."""
DIFF_COMMANDS = frozenset({"diff", "log", "show"})
"""Subcommands that can run an external diff or a textconv program unless told not to."""
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv")
NESTED_COMMANDS = frozenset({"diff", "log", "show", "status"})
"""Subcommands that start a git inside each nested repository unless told to ignore them."""
NESTED_FLAGS = ("--ignore-submodules=all",)
SUBMODULE_OPTIONS = ("--ignore-submodules", "--recurse-submodules", "--submodule")
"""Options a caller may not pass: whether git enters a nested repository is decided here."""
SUBMODULE_SHORT = "--submodule=short"
"""The one submodule option a caller may pass: git's default, which shows a gitlink as its commit ids."""
GLOBAL_FLAGS = ("--no-pager", "--no-optional-locks")
EXIT_USAGE = 129
"""git's exit status for an option it does not know (``--show-scope`` before git 2.26)."""


class GitRefused(subprocess.SubprocessError):
    """git was not run: the repository's settings could not be read or cannot be switched off.

    A subclass of :class:`subprocess.SubprocessError`, so callers that treat
    a failing git as "no git" fail closed the same way.
    """


def run_git(args: Sequence[str], cwd: Path, *, options: Sequence[str] = (), env: Mapping[str, str] | None = None,
            timeout: float = GIT_TIMEOUT_S, executable: str = "git",
            input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``git OPTIONS ARGS`` in ``cwd`` with every program of any repository's settings switched off.

    Args:
        args: the subcommand and its arguments (``["ls-files", "-z"]``).
        cwd: where git runs (it finds the repository from there).
        options: git's own options before the subcommand (``--git-dir``, ``--literal-pathspecs`` …).
        env: the environment, already without keys or credentials (default :func:`child_env`).
        timeout: seconds before git is killed.
        executable: the git program.
        input: bytes for git's standard input (default: none, end of file at once).

    Returns:
        The finished process, output as bytes; a non-zero exit is not an exception.

    Raises:
        OSError: git could not be started.
        subprocess.TimeoutExpired: git did not finish in time.
        GitRefused: the repository's settings could not be read or passed on.
        ValueError: ``args`` ask git to enter nested repositories.
    """
    _no_submodule_options(args)
    environment = _environment(env)
    settings = [*FIXED_SETTINGS, *overrides(cwd, options, environment, executable)]
    command = [executable, *GLOBAL_FLAGS, *_as_flags(settings), *options, *_with_command_flags(args)]
    if input is None:
        return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=timeout, check=False)
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, input=input, timeout=timeout,
                          check=False)


def overrides(cwd: Path, options: Sequence[str] = (), env: Mapping[str, str] | None = None,
              executable: str = "git") -> list[tuple[str, str]]:
    """``(key, value)`` settings that switch off every filter driver the repository's own config names, and
    every per-protocol policy any config names.

    Raises:
        GitRefused: the config could not be read, or a name cannot be passed to ``git -c``.
    """
    entries = _config_entries(cwd, options, env, executable)
    filters = [(f"filter.{name}.{key}", value) for name in _filter_names(entries)
               for key, value in (*((command, "") for command in FILTER_COMMANDS), ("required", "false"))]
    protocols = [(key, "never") for key in _protocol_keys(entries)]
    return [*filters, *protocols]


def filter_overrides(cwd: Path, options: Sequence[str] = (), env: Mapping[str, str] | None = None,
                     executable: str = "git") -> list[tuple[str, str]]:
    """The part of :func:`overrides` that switches off the repository's filter drivers.

    Raises:
        GitRefused: as :func:`overrides`.
    """
    return [(key, value) for key, value in overrides(cwd, options, env, executable) if key.startswith("filter.")]


def repository_filters(cwd: Path, options: Sequence[str] = (), env: Mapping[str, str] | None = None,
                       executable: str = "git") -> list[str]:
    """The filter driver names the repository's own config defines, sorted.

    Raises:
        GitRefused: as :func:`overrides`.
    """
    return _filter_names(_config_entries(cwd, options, env, executable))


def _config_entries(cwd: Path, options: Sequence[str], env: Mapping[str, str] | None,
                    executable: str) -> list[tuple[str, str]]:
    """``(scope, key)`` of every filter and protocol setting git's config holds for ``cwd``."""
    environment = _environment(env)
    base = [executable, *GLOBAL_FLAGS, *_as_flags(FIXED_SETTINGS), *options, "config", "--null"]
    done = _read_config([*base, "--show-scope", "--get-regexp", READ_KEYS], cwd, environment)
    scoped = True
    if done.returncode == EXIT_USAGE:  # an old git: every setting found counts as the repository's
        done, scoped = _read_config([*base, "--get-regexp", READ_KEYS], cwd, environment), False
    if done.returncode == 1 and not done.stdout:
        return []
    if done.returncode != 0:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        raise GitRefused(f"git cannot read the repository's settings (exit {done.returncode}: {last[:200]})")
    return _config_keys(done.stdout, scoped)


def _filter_names(entries: list[tuple[str, str]]) -> list[str]:
    names = {key[len("filter."):key.rindex(".")] for scope, key in entries
             if scope in REPOSITORY_SCOPES and key.startswith("filter.") and key.count(".") >= 2}
    _passable(names, "filter")
    return sorted(names)


def _protocol_keys(entries: list[tuple[str, str]]) -> list[str]:
    keys = {key for _scope, key in entries
            if key.startswith("protocol.") and key.endswith(".allow") and key.count(".") >= 2}
    _passable(keys, "protocol")
    return sorted(keys)


def _passable(names: set[str], what: str) -> None:
    bad = sorted(n for n in names if "=" in n or "\n" in n)
    if bad:
        raise GitRefused(f"the repository's git config names a {what} git -c cannot switch off ({bad[0]!r})")


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
        if key.startswith(("filter.", "protocol.")):
            found.append((scope, key))
    return found


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    environment = dict(child_env() if env is None else env)
    environment.update(FIXED_ENV)
    return environment


def _as_flags(settings: Sequence[tuple[str, str]]) -> list[str]:
    return [flag for key, value in settings for flag in ("-c", f"{key}={value}")]


def _no_submodule_options(args: Sequence[str]) -> None:
    for arg in args:
        if arg in ("--", "--end-of-options"):
            return
        if arg.startswith(SUBMODULE_OPTIONS) and arg != SUBMODULE_SHORT:
            raise ValueError(f"run_git decides whether git enters nested repositories; {arg!r} is not passed")


def _with_command_flags(args: Sequence[str]) -> list[str]:
    if not args:
        return []
    command, rest = args[0], list(args[1:])
    flags = [*(DIFF_FLAGS if command in DIFF_COMMANDS else ()), *(NESTED_FLAGS if command in NESTED_COMMANDS else ())]
    return [command, *flags, *rest]
