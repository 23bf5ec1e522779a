"""Dangerous shell commands: the ones ``bash`` asks about every time (AGENT-3).

:func:`danger_of` reads the shell text the model sent and names the first
dangerous thing it sees:

* a recursive delete (``rm`` with ``-r``/``-R``/``--recursive`` in any flag
  order, ``find … -delete``, ``find … -exec rm``, ``git clean -f``) or
  ``git reset --hard``;
* a push that rewrites or deletes remote history (``--force``, ``-f``,
  ``--force-with-lease``, ``--mirror``, ``--delete``, ``+ref``, ``:ref``);
* a download piped or substituted into a shell or interpreter
  (``curl … | sh``, ``bash <(wget …)``, ``sh -c "$(curl …)"``);
* a write outside the repository: a redirection, or a ``tee``, ``cp``,
  ``mv``, ``install``, ``ln``, ``dd of=``, ``rm``, ``touch``, ``mkdir``,
  ``truncate`` target that is absolute and not under the root, leaves it
  with ``..`` (symbolic links are followed), starts with ``~`` or is named
  by a variable — also after a ``cd``;
* ``sudo`` and the like, ``mkfs``, ``chmod``/``chown``/``chgrp`` outside
  the repository (``chmod -R 777 /``).

It looks inside ``bash -c`` strings, ``eval`` and ``$(…)``/backquotes,
skips assignments, keywords and wrappers (``env``, ``timeout``, ``xargs``
…), and drops here-document bodies. Text it cannot split into words (an
unclosed quote) counts as dangerous.

Limits, honestly: this is a heuristic over the text; nothing is executed.
Bash can always write anywhere — ``python -c "open('/etc/x','w')"``, a
script in the repository, an alias, a variable holding a command, ``sed
-i`` on a file outside — and none of that is seen here. Quotes are gone
once the text is split, so a quoted ``";"`` reads as an operator (which
can only add a question). It makes the obvious cases ask every time; the
permission dialog always shows the whole command, and the user's reading
of it is the real check.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

MAX_DEPTH = 4
"""Nesting of ``bash -c`` / ``eval`` / ``$(…)`` read before the command counts as dangerous."""
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish"})
INTERPRETER = re.compile(r"^(?:(?:ba|z|da|k|mk|fi)?sh|python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs"
                         r"|php[\d.]*)$")
DOWNLOADERS = frozenset({"curl", "wget"})
AS_ROOT = frozenset({"sudo", "doas", "su", "pkexec"})
FORMATTERS = frozenset({"mke2fs", "mkswap", "wipefs"})  # and every mkfs*
SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
SAFE_TARGET_PREFIX = "/dev/fd/"
OPERAND_WRITERS = frozenset({"rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee"})
"""Commands that write (or delete) every operand."""
COPY_WRITERS = frozenset({"cp", "mv", "install", "ln"})
"""Commands that write their last operand (or ``-t DIR``)."""
OWNER_TOOLS = frozenset({"chmod", "chown", "chgrp"})
VALUE_OPTIONS = {"truncate": {"-s", "-r", "--size", "--reference"}, "mkdir": {"-m", "--mode"},
                 "touch": {"-d", "-t", "-r", "--date", "--reference"}, "install": {"-m", "-o", "-g", "-S"},
                 "cp": {"-S"}, "mv": {"-S"}, "ln": {"-S"}, "shred": {"-n", "-s"},
                 "push": {"-o", "--push-option", "--repo", "--receive-pack", "--exec"}}
"""Options that take the next word as their value, per command."""
SUBSTITUTION = re.compile(r"\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)|`([^`]*)`")
"""A ``$(…)`` (with one level of inner parentheses) or a backquoted command inside a word."""
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w.-]*)\1")

PUNCTUATION = "();<>|&\n`"
OPERATORS = sorted(["&>>", "<<<", "&&", "||", "|&", ">>", "&>", ">|", "<>", ">&", "<&", "<<", "<(", ">(", ";;",
                    ";&", ";", "&", "|", "<", ">", "(", ")", "\n", "`"], key=len, reverse=True)
LINKED = frozenset({"|", "|&", "<(", ">(", ")", "`"})
"""Operators that join two commands' data (a pipe, a substitution); the others start an unrelated command."""
WRITES = frozenset({">", ">>", "&>", "&>>", ">|", "<>", ">&"})
READS = frozenset({"<", "<<", "<<<", "<&"})
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time",
                      "coproc"})
WRAPPERS = {"command": set(), "builtin": set(), "exec": {"-a"}, "nohup": set(), "setsid": set(),
            "nice": {"-n"}, "stdbuf": {"-i", "-o", "-e"}, "env": {"-u", "-C", "--unset", "--chdir"},
            "timeout": {"-s", "-k", "--signal", "--kill-after"}, "sudo": {"-u", "-g", "-C", "-D", "-p", "-r", "-t"},
            "doas": {"-u", "-C"}, "pkexec": {"--user"},
            "xargs": {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"}}
"""Commands that run the command after them, and their options that take a value."""


def danger_of(command: str, root: Path) -> str | None:
    """A short reason when ``command`` looks dangerous, else ``None``.

    Args:
        command: the shell text, as bash would receive it.
        root: the repository root (where the command runs).
    """
    return _Reader(Path(os.path.realpath(root))).read(command, 0)


@dataclass
class Segment:
    """One simple command: its words, the files it redirects output to, and its pipeline group."""

    group: int
    words: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)


class _Reader:
    """Reads one command for one repository root, following ``cd``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cwd: Path | None = root

    def read(self, command: str, depth: int) -> str | None:
        if depth > MAX_DEPTH:
            return "commands nested too deeply to check"
        try:
            parts = segments(_drop_heredocs(command))
        except ValueError:
            return "its quoting could not be read, so it cannot be checked"
        reason = _piped_download(parts)
        for part in parts:
            reason = reason or self._segment(part, depth)
        return reason

    def _segment(self, part: Segment, depth: int) -> str | None:
        wrappers, argv = effective_argv(part.words)
        for word in part.words + part.targets:
            reason = self._substitutions(word, argv, depth)
            if reason:
                return reason
        if any(w in AS_ROOT for w in wrappers) or (argv and _name(argv[0]) in AS_ROOT):
            return "runs as another user (sudo)"
        reason = self._first_outside(part.targets)
        if reason or not argv:
            return reason
        return self._command(_name(argv[0]), argv[1:], depth)

    def _substitutions(self, word: str, argv: list[str], depth: int) -> str | None:
        for match in SUBSTITUTION.finditer(word):
            inner = match.group(1) if match.group(1) is not None else match.group(2)
            if argv and INTERPRETER.match(_name(argv[0])) and _downloads(inner):
                return "runs a download with a shell (curl | sh)"
            reason = _Reader(self.root).read(inner, depth + 1)
            if reason:
                return reason
        return None

    def _command(self, name: str, args: list[str], depth: int) -> str | None:
        if name in ("cd", "pushd"):
            operands = _split_options(args)[1]
            self.cwd = self._place(operands[0] if operands else "~")
            return None
        if name.startswith("mkfs") or name in FORMATTERS:
            return "formats a filesystem (mkfs)"
        if name in SHELLS:
            script = _dash_c(args)
            return self.read(script, depth + 1) if script is not None else None
        if name == "eval":
            return self.read(" ".join(args), depth + 1)
        check = {"rm": _rm, "find": _find, "git": _git}.get(name)
        reason = check(args) if check else None
        if reason:
            return reason
        if name == "dd":
            return self._first_outside([a[len("of="):] for a in args if a.startswith("of=")])
        if name in OWNER_TOOLS:
            return self._owner(name, args)
        options, operands = _split_options(args, VALUE_OPTIONS.get(name, set()))
        if name in OPERAND_WRITERS:
            return self._first_outside(operands)
        if name in COPY_WRITERS:
            return self._first_outside(_copy_targets(options, operands))
        return None

    def _owner(self, name: str, args: list[str]) -> str | None:
        options, operands = _split_options(args)
        if not any(o.startswith("--reference") for o in options):
            operands = operands[1:]
        outside = next((p for p in operands if self._outside(p)), None)
        if outside is None:
            return None
        flag = " -R" if _has_flag(options, "--recursive", "R") else ""
        return f"changes owner or permissions outside the repository ({name}{flag} {outside})"

    def _first_outside(self, targets: list[str]) -> str | None:
        for target in targets:
            place = self._outside(target)
            if place is not None:
                shown = target if place == target else f"{target} → {place}"
                return f"writes outside the repository ({shown})"
        return None

    def _place(self, path: str) -> str | None:
        """Where ``path`` points once resolved; ``None`` when that cannot be told."""
        if "$" in path or "`" in path or path == "-":
            return None
        if path.startswith("~"):
            path = os.path.expanduser(path)
            if path.startswith("~"):
                return None
        if self.cwd is None and not os.path.isabs(path):
            return None
        return os.path.realpath(os.path.join(self.cwd or self.root, path))

    def _outside(self, target: str) -> str | None:
        """Where ``target`` points when that is outside the root (or unknown: then ``target``)."""
        if target in SAFE_TARGETS or target.startswith(SAFE_TARGET_PREFIX):
            return None
        place = self._place(target)
        if place is None:
            return target
        inside = Path(place) == self.root or self.root in Path(place).parents
        return None if inside else (target if os.path.isabs(target) else place)


def segments(command: str) -> list[Segment]:
    """The simple commands of ``command``; commands joined by a pipe or substitution share a group.

    Raises:
        ValueError: the text cannot be split into words (an unclosed quote).
    """
    lexer = shlex.shlex(command, posix=True, punctuation_chars=PUNCTUATION)
    lexer.whitespace = " \t\r"
    lexer.wordchars += "$+{}@%,:^![]#\\"
    tokens = _operators(list(lexer))
    parts = [Segment(0)]
    for i, token in enumerate(tokens):
        current = parts[-1]
        previous = tokens[i - 1] if i else ""
        if token in WRITES or token in READS or previous in READS:
            continue
        if previous in WRITES and not (previous == ">&" and (token.isdigit() or token == "-")):
            current.targets.append(token)
        elif token in OPERATORS:
            substitution = token == "(" and bool(current.words) and current.words[-1].endswith("$")
            if substitution:
                current.words[-1] = current.words[-1][:-1]
                if not current.words[-1]:
                    current.words.pop()
            parts.append(Segment(current.group if token in LINKED or substitution else current.group + 1))
        else:
            current.words.append(token)
    return [p for p in parts if p.words or p.targets]


def _operators(tokens: list[str]) -> list[str]:
    """Tokens with runs of punctuation (``)>``, ``|&>``) split into single operators."""
    split: list[str] = []
    for token in tokens:
        if not token or any(c not in PUNCTUATION for c in token):
            split.append(token)
            continue
        while token:
            op = next((o for o in OPERATORS if token.startswith(o)), token[0])
            split.append(op)
            token = token[len(op):]
    return split


def effective_argv(words: list[str]) -> tuple[list[str], list[str]]:
    """``(wrappers, argv)``: the command that really runs, past assignments, keywords and wrappers."""
    wrappers: list[str] = []
    i = 0
    while i < len(words):
        name = _name(words[i])
        if ASSIGNMENT.match(words[i]) or words[i] in KEYWORDS:
            i += 1
        elif name in WRAPPERS:
            wrappers.append(name)
            i = _past_options(words, i + 1, WRAPPERS[name])
            i += 1 if name == "timeout" and i < len(words) else 0
        else:
            break
    return wrappers, words[i:]


def _past_options(words: list[str], i: int, with_value: set[str]) -> int:
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        i += 2 if words[i] in with_value else 1
    return i + 1 if i < len(words) and words[i] == "--" else i


def _name(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _drop_heredocs(command: str) -> str:
    """The command without here-document bodies (they are data, and often hold stray quotes)."""
    kept: list[str] = []
    closing: list[str] = []
    for line in command.split("\n"):
        if closing:
            if line.strip() == closing[0]:
                closing.pop(0)
            continue
        kept.append(line)
        closing.extend(m.group(2) for m in HEREDOC.finditer(line.replace("<<<", "")))
    return "\n".join(kept)


def _split_options(args: list[str], with_value: set[str] | frozenset[str] = frozenset()
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


def _has_flag(options: list[str], long: str, shorts: str) -> bool:
    """Whether ``long`` (also as ``long=…``) or one of the letters ``shorts`` (alone or bundled) is set."""
    return any(o == long or o.startswith(long + "=") or (not o.startswith("--") and set(shorts) & set(o[1:]))
               for o in options)


def _copy_targets(options: list[str], operands: list[str]) -> list[str]:
    named = [o.split("=", 1)[1] for o in options if o.startswith("--target-directory=")]
    if named or "-t" in options or "--target-directory" in options:
        return named or operands[:1]
    return operands[-1:] if len(operands) >= 2 else []


def _dash_c(args: list[str]) -> str | None:
    """The script of ``bash -c SCRIPT`` (``-c`` may sit in a bundle such as ``-lc``)."""
    for i, arg in enumerate(args):
        if not arg.startswith("-"):
            return None
        if not arg.startswith("--") and "c" in arg[1:]:
            return args[i + 1] if i + 1 < len(args) else None
    return None


def _rm(args: list[str]) -> str | None:
    options = _split_options(args)[0]
    return "recursive delete (rm -r)" if _has_flag(options, "--recursive", "rR") else None


def _find(args: list[str]) -> str | None:
    if "-delete" in args:
        return "deletes what find matches (find -delete)"
    for i, arg in enumerate(args[:-1]):
        if arg in ("-exec", "-execdir", "-ok", "-okdir") and _name(args[i + 1]) in ("rm", "unlink", "shred"):
            return "deletes what find matches (find -exec rm)"
    return None


def _git(args: list[str]) -> str | None:
    i = _past_options(args, 0, {"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
    command, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    if command == "push":
        return _push(rest)
    if command == "clean" and _has_flag(_split_options(rest)[0], "--force", "f"):
        return "deletes untracked files (git clean -f)"
    return "discards uncommitted changes (git reset --hard)" if command == "reset" and "--hard" in rest else None


def _push(args: list[str]) -> str | None:
    options, operands = _split_options(args, VALUE_OPTIONS["push"])
    forced = [o for o in options if o == "--mirror" or _has_flag([o], "--force", "f")
              or _has_flag([o], "--force-with-lease", "")] + [r for r in operands[1:] if r.startswith("+")]
    if forced:
        return f"force push (git push {forced[0].split('=')[0]})"
    deleted = _has_flag(options, "--delete", "d") or any(r.startswith(":") and len(r) > 1 for r in operands[1:])
    return "deletes a remote branch (git push --delete)" if deleted else None


def _downloads(command: str) -> bool:
    try:
        return any(_is_download(p) for p in segments(command))
    except ValueError:
        return any(d in command for d in DOWNLOADERS)


def _is_download(part: Segment) -> bool:
    argv = effective_argv(part.words)[1]
    return bool(argv) and _name(argv[0]) in DOWNLOADERS


def _runs_interpreter(part: Segment) -> bool:
    wrappers, argv = effective_argv(part.words)
    return any(INTERPRETER.match(_name(n)) for n in wrappers + argv[:1])


def _piped_download(parts: list[Segment]) -> str | None:
    """A download and a shell or interpreter joined by a pipe or a process substitution."""
    for _, group in itertools.groupby(parts, key=lambda p: p.group):
        members = list(group)
        if any(_is_download(p) for p in members) and any(_runs_interpreter(p) for p in members):
            return "pipes a download into a shell (curl | sh)"
    return None
