"""What one command does, read from its words, for :mod:`~ljtui.core.agent.danger`.

Pure functions over a command's argv (after brace expansion): which
command really runs past wrappers such as ``env``, ``timeout`` or
``xargs`` (:func:`unwrap`, which also splits ``env -S``), whether it
deletes recursively, which files it writes or changes the mode of, and the
commands of ``find -exec``. Paths are returned as written;
:mod:`~ljtui.core.agent.danger` resolves them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from ljtui.core.agent.bash_model import Word, literal_word

AS_ROOT = frozenset({"sudo", "doas", "su", "pkexec", "run0"})
FORMATTERS = frozenset({"mke2fs", "mkswap", "wipefs"})
"""Commands that format a device, besides every ``mkfs*``."""
OPERAND_WRITERS = frozenset({"rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee"})
"""Commands that write (or delete) every operand."""
COPY_WRITERS = frozenset({"cp", "mv", "install", "ln"})
"""Commands that write their last operand (or ``-t DIR``); ``mv`` also removes its sources."""
OWNER_TOOLS = frozenset({"chmod", "chown", "chgrp"})
DELETERS = frozenset({"rm", "unlink", "shred"})
VALUE_OPTIONS = {"truncate": {"-s", "-r", "--size", "--reference"}, "mkdir": {"-m", "--mode"},
                 "touch": {"-d", "-t", "-r", "--date", "--reference"}, "install": {"-m", "-o", "-g", "-S"},
                 "cp": {"-S"}, "mv": {"-S"}, "ln": {"-S"}, "shred": {"-n", "-s"}, "sed": {"-l"}}
"""Options that take the next word as their value, per command."""
WRAPPERS = {"command": set(), "builtin": set(), "exec": {"-a"}, "nohup": set(), "setsid": set(),
            "nice": {"-n", "--adjustment"}, "stdbuf": {"-i", "-o", "-e"}, "time": {"-f", "-o"},
            "ionice": {"-c", "-n", "-p", "-t"}, "timeout": {"-s", "-k", "--signal", "--kill-after"},
            "sudo": {"-u", "-g", "-C", "-D", "-p", "-r", "-t", "-h", "-U"}, "doas": {"-u", "-C"},
            "pkexec": {"--user"}, "run0": {"-u", "--user", "-D", "--chdir"},
            "xargs": {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter",
                      "--arg-file", "--replace"}}
"""Commands that run the command after them, and their options that take a value (``env`` is read apart)."""
ENV_VALUE_OPTIONS = frozenset({"-u", "--unset", "-C", "--chdir"})
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$", re.S)
FIND_STARTS_END = ("-", "(", "!", ",")
"""How the first word of a ``find`` expression starts (the words before it are start points)."""
FIND_EXECS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})


@dataclass(frozen=True)
class Invocation:
    """The command that really runs once wrappers are peeled off.

    Attributes:
        argv: its name and arguments.
        name: its name without a directory (``rm`` for ``/bin/rm``), or ``""``.
        args: its arguments as text (literal values, or the text of what only the shell knows).
        wrappers: the wrapper commands in front of it, outermost first.
        env: ``NAME=value`` pairs set for it (by ``env`` or another wrapper).
        chdir: the directory ``env -C`` runs it in, if any.
    """

    argv: list[Word]
    name: str
    args: list[str]
    wrappers: list[str] = field(default_factory=list)
    env: list[tuple[str, str]] = field(default_factory=list)
    chdir: str | None = None


def name_of(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def unwrap(argv: list[Word]) -> Invocation:
    """The command ``argv`` really runs, past wrappers (``env -S "…"`` is split as ``env`` does).

    Raises:
        ValueError: an ``env -S`` string cannot be split (an unclosed quote).
    """
    words = list(argv)
    wrappers: list[str] = []
    env: list[tuple[str, str]] = []
    chdir: list[str] = []
    while words:
        name = name_of(words[0].shown)
        if name == "env":
            wrappers.append(name)
            words = _past_env(words[1:], env, chdir)
        elif name in WRAPPERS:
            wrappers.append(name)
            i = _past_options([w.shown for w in words], 1, WRAPPERS[name])
            while i < len(words) and ASSIGNMENT.match(words[i].shown):
                env.append(_pair(words[i].shown))
                i += 1
            i += 1 if name == "timeout" and i < len(words) else 0
            words = words[i:]
        else:
            break
    name = name_of(words[0].shown) if words else ""
    return Invocation(words, name, [w.shown for w in words[1:]], wrappers, env, chdir[-1] if chdir else None)


def _past_env(words: list[Word], env: list[tuple[str, str]], chdir: list[str]) -> list[Word]:
    i = 0
    while i < len(words):
        text = words[i].shown
        split = _split_string(text, words[i + 1].shown if i + 1 < len(words) else "")
        if split is not None:
            string, consumed = split
            words = words[:i] + [literal_word(part) for part in shlex.split(string)] + words[i + consumed:]
        elif text == "--":
            return words[i + 1:]
        elif text in ENV_VALUE_OPTIONS:
            if text in ("-C", "--chdir") and i + 1 < len(words):
                chdir.append(words[i + 1].shown)
            i += 2
        elif text.startswith("--chdir="):
            chdir.append(text.split("=", 1)[1])
            i += 1
        elif text.startswith("-") and text != "-":
            i += 1
        elif ASSIGNMENT.match(text):
            env.append(_pair(text))
            i += 1
        else:
            break
    return words[i:]


def _split_string(option: str, following: str) -> tuple[str, int] | None:
    """``(string, words used)`` of ``-S STRING``, ``-SSTRING``, ``-iS STRING`` or ``--split-string[=]STRING``."""
    if option == "--split-string":
        return following, 2
    if option.startswith("--split-string="):
        return option.split("=", 1)[1], 1
    if option.startswith("-") and not option.startswith("--") and "S" in option[1:]:
        rest = option[option.index("S") + 1:]
        return (rest, 1) if rest else (following, 2)
    return None


def _pair(assignment: str) -> tuple[str, str]:
    name, value = assignment.split("=", 1)
    return name.rstrip("+"), value


def _past_options(words: list[str], i: int, with_value: set[str]) -> int:
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        i += 2 if words[i] in with_value else 1
    return i + 1 if i < len(words) and words[i] == "--" else i


def split_options(args: list[str], with_value: set[str] | frozenset[str] = frozenset()
                  ) -> tuple[list[str], list[str]]:
    """``(options, operands)``; ``--`` ends the options; an option in ``with_value`` takes the next word."""
    options: list[str] = []
    operands: list[str] = []
    words = iter(args)
    for word in words:
        if word == "--":
            operands.extend(words)
        elif word.startswith("-") and word != "-":
            options.append(word)
            if word in with_value:
                next(words, None)
        else:
            operands.append(word)
    return options, operands


def has_flag(options: list[str], long: str, shorts: str) -> bool:
    """Whether ``long`` (also as ``long=…``) or one of the letters ``shorts`` (alone or bundled) is set."""
    return any(o == long or o.startswith(long + "=") or (not o.startswith("--") and bool(set(shorts) & set(o[1:])))
               for o in options)


def recursive_delete(name: str, args: list[str]) -> str | None:
    """The reason when ``rm`` deletes recursively or ``find`` deletes what it matches."""
    if name == "rm" and has_flag(split_options(args)[0], "--recursive", "rR"):
        return "recursive delete (rm -r)"
    if name != "find":
        return None
    if "-delete" in args:
        return "deletes what find matches (find -delete)"
    for start, end in find_execs(args):
        if end > start and name_of(args[start]) in DELETERS:
            return "deletes what find matches (find -exec rm)"
    return None


def find_starts(args: list[str]) -> list[str]:
    """Where ``find`` starts (``.`` when no start point is given)."""
    options = 0
    while options < len(args) and args[options] in ("-H", "-L", "-P"):
        options += 1
    starts: list[str] = []
    for arg in args[options:]:
        if arg.startswith(FIND_STARTS_END):
            break
        starts.append(arg)
    return starts or ["."]


def find_execs(args: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of the command of each ``-exec``/``-execdir``/``-ok``/``-okdir`` in ``args``."""
    ranges: list[tuple[int, int]] = []
    i = 0
    while i < len(args):
        if args[i] in FIND_EXECS:
            end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            ranges.append((i + 1, end))
            i = end
        i += 1
    return ranges


def write_targets(name: str, args: list[str]) -> list[str]:
    """The files a file-writing command writes, deletes or creates."""
    if name == "dd":
        return [a[len("of="):] for a in args if a.startswith("of=")]
    if name == "find":
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a in FIND_WRITES]
    if name == "sed":
        return _sed_files(args)
    options, operands = split_options(args, VALUE_OPTIONS.get(name, set()))
    if name in OPERAND_WRITERS or (name == "install" and has_flag(options, "--directory", "d")):
        return operands
    if name not in COPY_WRITERS:
        return []
    named = [o.split("=", 1)[1] for o in options if o.startswith("--target-directory=")]
    if named or "-t" in options or "--target-directory" in options:
        targets = named or operands[:1]
        sources = operands if named else operands[1:]
    else:
        targets = operands[-1:] if len(operands) >= 2 else []
        sources = operands[:-1]
    return targets + (sources if name == "mv" else [])


def _sed_files(args: list[str]) -> list[str]:
    """The files ``sed -i`` rewrites (the operands after the script, or all of them with ``-e``/``-f``)."""
    options, operands = split_options(args, {"-e", "-f", "--expression", "--file", "-l"})
    if not any(o.startswith("--in-place") or (not o.startswith("--") and "i" in o[1:]) for o in options):
        return []
    scripted = any(o in ("-e", "-f") or o.startswith(("--expression", "--file")) for o in options)
    return operands if scripted else operands[1:]


def owner_targets(args: list[str]) -> tuple[list[str], bool]:
    """The files ``chmod``/``chown``/``chgrp`` change, and whether recursively."""
    options, operands = split_options(args)
    if not any(o.startswith("--reference") for o in options):
        operands = operands[1:]
    return operands, has_flag(options, "--recursive", "R")
