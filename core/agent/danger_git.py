"""Git commands that lose work, rewrite a remote's history, or make git run a program.

:func:`git_reason` reads the words after ``git`` and names the first such
thing: a force or deleting push, ``reset --hard``, ``clean -f``, a checkout
or restore that discards changes in the working tree, dropping stashes,
deleting an unmerged branch, expiring the reflog, pruning objects,
rewriting history; a configuration key naming a program git runs (a hook
directory, an fsmonitor, a pager, a textconv or filter driver, an ``!``
alias …), set with ``git config`` for later or with ``git -c`` for now.
:func:`git_scripts` gives the shell commands git itself would run
(``submodule foreach``, ``rebase --exec`` …) so they can be checked too.
"""

from __future__ import annotations

import shlex
from fnmatch import fnmatchcase

from ljtui.core.agent.danger_commands import has_flag, split_options

GLOBAL_VALUE_OPTIONS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix",
                        "--list-cmds"}
"""Options of ``git`` itself that take the next word as their value."""
PUSH_VALUE_OPTIONS = {"-o", "--push-option", "--repo", "--receive-pack", "--exec"}
PROGRAM_KEYS = (
    "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor", "core.askpass", "core.gitproxy",
    "core.alternaterefscommand", "sequence.editor", "diff.external", "diff.*.textconv", "diff.*.command",
    "merge.*.driver", "filter.*.clean", "filter.*.smudge", "filter.*.process", "credential.helper",
    "credential.*.helper", "gpg.program", "gpg.*.program", "uploadpack.packobjectshook", "interactive.difffilter",
    "pager.*", "web.browser", "browser.*.cmd", "browser.*.path", "difftool.*.cmd", "difftool.*.path",
    "mergetool.*.cmd", "mergetool.*.path", "man.*.cmd", "man.*.path", "sendemail.sendmailcmd",
    "sendemail.tocmd", "sendemail.cccmd", "sendemail.headercmd", "remote.*.receivepack", "remote.*.uploadpack")
"""Configuration keys (lower case, ``*`` for a subsection) whose value is a program git runs."""
PATH_KEYS = ("core.hookspath", "include.path", "includeif.*.path")
"""Keys naming a place git takes hooks or more configuration from: changing them is always asked."""
HARMLESS_PROGRAMS = frozenset({"", "cat", "less", "more", "true", "false", ":"})
"""Program values that run nothing of concern (``git -c core.pager=cat log``)."""
CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
                          "--list", "-l", "--unset", "--unset-all", "--rename-section", "--remove-section", "--edit",
                          "-e"})
CONFIG_SUBCOMMANDS = frozenset({"get", "list", "unset", "edit", "rename-section", "remove-section"})
"""``git config`` subcommands that set no value (``set`` does)."""
CONFIG_VALUE_OPTIONS = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}
ENV_PROGRAMS = frozenset({"GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
                          "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER"})
"""Environment variables naming a program git runs."""
ENV_CONFIG = frozenset({"GIT_CONFIG_PARAMETERS", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
                        "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR"})
"""Environment variables that point git at other configuration or programs."""
ENV_CONFIG_KEY = "GIT_CONFIG_KEY_"
CHECKOUT_VALUE_OPTIONS = {"-b", "-B", "--orphan"}
PATHSPEC_START = (".", ":", "/")
GLOB_CHARACTERS = frozenset("*?[")


def git_reason(args: list[str]) -> str | None:
    """The reason when ``git ARGS`` loses work, rewrites a remote, or runs a configured program."""
    i, settings = _global_options(args)
    if any(a.startswith("--exec-path=") for a in args[:i]):
        return "runs git's own programs from another directory (git --exec-path=…)"
    for key, value in settings:
        reason = setting_reason(key, value, planted=False)
        if reason:
            return reason
    if i >= len(args):
        return None
    command, rest = args[i], args[i + 1:]
    check = {"push": _push, "clean": _clean, "reset": _reset, "checkout": _checkout, "switch": _switch,
             "restore": _restore, "stash": _stash, "branch": _branch, "reflog": _reflog, "gc": _gc,
             "prune": _prune, "config": _config, "filter-branch": _filter_branch}.get(command)
    return check(rest) if check else None


def git_writes(args: list[str]) -> list[str]:
    """Files ``git`` writes itself that a path check should see (``git config --file F`` …)."""
    i, _ = _global_options(args)
    if i >= len(args) or args[i] != "config":
        return []
    rest = args[i + 1:]
    options = split_options(rest, CONFIG_VALUE_OPTIONS)[0]
    if any(o in CONFIG_READS for o in options):
        return []
    targets = [o.split("=", 1)[1] for o in rest if o.startswith("--file=")]
    targets += [rest[j + 1] for j, o in enumerate(rest[:-1]) if o in ("-f", "--file")]
    return targets


def git_scripts(args: list[str]) -> list[str]:
    """Shell commands ``git ARGS`` runs itself: ``submodule foreach``, ``rebase --exec``, ``bisect run`` …"""
    i, _ = _global_options(args)
    command, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    if command == "submodule" and "foreach" in rest:
        after = rest[rest.index("foreach") + 1:]
        while after and after[0].startswith("-"):
            after = after[1:]
        return [" ".join(after)] if after else []
    if command == "bisect" and rest[:1] == ["run"]:
        return [shlex.join(rest[1:])] if rest[1:] else []
    if command in ("rebase", "difftool"):
        short, long = ("-x", "--exec") if command == "rebase" else ("-x", "--extcmd")
        scripts = [rest[j + 1] for j, o in enumerate(rest[:-1]) if o in (short, long)]
        return scripts + [o.split("=", 1)[1] for o in rest if o.startswith(long + "=")]
    return []


def setting_reason(key: str, value: str, planted: bool) -> str | None:
    """The reason when setting configuration ``key`` to ``value`` makes git run a program."""
    lowered = key.lower()
    if lowered.startswith("alias."):
        runs = value.lstrip().startswith("!")
    elif any(fnmatchcase(lowered, k) for k in PATH_KEYS):
        runs = True
    else:
        runs = any(fnmatchcase(lowered, k) for k in PROGRAM_KEYS) and value.strip() not in HARMLESS_PROGRAMS
    if not runs:
        return None
    if planted:
        return f"changes git config to run a program later (git config {key})"
    return f"runs a program named in git config (git -c {key}=…)"


def env_reason(name: str, value: str) -> str | None:
    """The reason when an environment variable makes git run a program or read other configuration."""
    if name in ENV_PROGRAMS and value.strip() not in HARMLESS_PROGRAMS:
        return f"sets a program for git to run ({name})"
    if name in ENV_CONFIG:
        return f"points git at other config or programs ({name})"
    if name.startswith(ENV_CONFIG_KEY):
        return setting_reason(value, "…", planted=False)
    return None


def _global_options(args: list[str]) -> tuple[int, list[tuple[str, str]]]:
    """Index of the subcommand, and the ``(key, value)`` settings of ``-c`` and ``--config-env``."""
    settings: list[tuple[str, str]] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):
        option = args[i]
        if option in ("-c", "--config-env") and i + 1 < len(args):
            key, _, value = args[i + 1].partition("=")
            settings.append((key, value if option == "-c" else "…"))
        elif option.startswith("--config-env="):
            settings.append((option.split("=", 2)[1], "…"))
        i += 2 if option in GLOBAL_VALUE_OPTIONS else 1
    return i, settings


def _push(args: list[str]) -> str | None:
    options, operands = split_options(args, PUSH_VALUE_OPTIONS)
    forced = [o for o in options if o == "--mirror" or has_flag([o], "--force", "f")
              or has_flag([o], "--force-with-lease", "")] + [r for r in operands[1:] if r.startswith("+")]
    if forced:
        return f"force push (git push {forced[0].split('=')[0]})"
    if "--prune" in options:
        return "deletes remote branches that are gone here (git push --prune)"
    deleted = has_flag(options, "--delete", "d") or any(r.startswith(":") and len(r) > 1 for r in operands[1:])
    return "deletes a remote branch (git push --delete)" if deleted else None


def _clean(args: list[str]) -> str | None:
    return "deletes untracked files (git clean -f)" if has_flag(split_options(args)[0], "--force", "f") else None


def _reset(args: list[str]) -> str | None:
    return "discards uncommitted changes (git reset --hard)" if "--hard" in args else None


def _checkout(args: list[str]) -> str | None:
    options, operands = split_options(args, CHECKOUT_VALUE_OPTIONS)
    if has_flag(options, "--force", "f"):
        return "discards uncommitted changes (git checkout -f)"
    paths = args[args.index("--") + 1:] if "--" in args else []
    pathspec = paths or (operands and any(o in ("--ours", "--theirs") for o in options)) or len(operands) >= 2 \
        or any(_pathlike(o) for o in operands)
    if pathspec:
        shown = f"-- {paths[-1]}" if paths else operands[-1]
        return f"discards uncommitted changes to files (git checkout {shown})"
    return None


def _pathlike(operand: str) -> bool:
    """Whether a checkout operand can only be a path (``.``, ``./x``, ``:/x``, a glob), never a branch."""
    return operand.startswith(PATHSPEC_START) or bool(GLOB_CHARACTERS & set(operand))


def _switch(args: list[str]) -> str | None:
    options = split_options(args, {"-c", "-C", "--orphan"})[0]
    if has_flag(options, "--force", "f") or "--discard-changes" in options:
        return "discards uncommitted changes (git switch --discard-changes)"
    return None


def _restore(args: list[str]) -> str | None:
    options, operands = split_options(args, {"-s", "--source"})
    staged = has_flag(options, "--staged", "S")
    worktree = has_flag(options, "--worktree", "W")
    listed = any(o.startswith("--pathspec-from-file") for o in options)
    if (operands or listed) and (worktree or not staged):
        shown = operands[-1] if operands else "--pathspec-from-file"
        return f"discards uncommitted changes to files (git restore {shown})"
    return None


def _stash(args: list[str]) -> str | None:
    operands = split_options(args)[1]
    if operands[:1] in (["drop"], ["clear"]):
        return f"discards stashed changes (git stash {operands[0]})"
    return None


def _branch(args: list[str]) -> str | None:
    options = split_options(args)[0]
    shorts = "".join(o[1:] for o in options if not o.startswith("--"))
    deleting = "d" in shorts or "--delete" in options
    forced = "f" in shorts or "--force" in options
    if "D" in shorts or (deleting and forced):
        return "deletes a branch even if it is not merged (git branch -D)"
    return None


def _reflog(args: list[str]) -> str | None:
    operands = split_options(args)[1]
    if operands[:1] in (["expire"], ["delete"]):
        return f"deletes reflog entries, the record of lost commits (git reflog {operands[0]})"
    return None


def _gc(args: list[str]) -> str | None:
    if any(a.startswith("--prune") for a in args):
        return "deletes unreachable objects now (git gc --prune)"
    return None


def _prune(args: list[str]) -> str | None:
    return None if has_flag(split_options(args)[0], "--dry-run", "n") else "deletes unreachable objects (git prune)"


def _filter_branch(args: list[str]) -> str | None:
    return "rewrites history (git filter-branch)"


def _config(args: list[str]) -> str | None:
    options, operands = split_options(args, CONFIG_VALUE_OPTIONS)
    if any(o in CONFIG_READS for o in options) or operands[:1] and operands[0] in CONFIG_SUBCOMMANDS:
        return None
    if operands[:1] == ["set"]:
        operands = operands[1:]
    if len(operands) < 2:
        return None
    return setting_reason(operands[0], operands[1], planted=True)
