"""Dangerous shell commands: the ones ``bash`` asks about every time (AGENT-3).

The sandbox is the guard: it decides what a command may write and reach.
This check explains the risk to the user. :func:`danger_of` names the first
dangerous thing it finds in a command, the permission dialog shows that
reason, and a dangerous command can only be allowed once: no session grant
or allow-list entry covers it.

It reads the command the way bash does, from a real parse
(:mod:`~ljtui.core.agent.bash_syntax`): quotes, here-documents, comments,
brace expansion (``rm -{r,f}``, ``rm {a,/etc/passwd}``), and every nested
script: ``$(…)``, backquotes, ``<(…)``/``>(…)``, ``bash -c``, ``eval``, a
here-document, here-string or ``echo``/``printf`` text fed to a shell,
``find -exec``, ``env -S``, ``xargs``, ``watch``, ``trap``, ``alias``, and
what git runs itself (``submodule foreach``, ``rebase --exec``). It looks past assignments and
wrappers (``env``, ``timeout``, ``nice``, ``nohup``, ``xargs`` …) and
follows ``cd`` (a ``cd`` in a subshell, a substitution, a background job or
a pipeline's inner command does not leak; after a ``cd`` that may have
failed both directories are checked). It names:

* a recursive delete (``rm -r`` in any spelling, ``find -delete``,
  ``find -exec rm``, ``git clean -f``);
* lost work or history: ``git reset --hard``, ``git checkout -f``, a
  checkout or restore of files (``git checkout -- .``, ``git restore x``),
  ``git stash drop``/``clear``, ``git branch -D``, ``git reflog expire``,
  ``git gc --prune``, ``git prune``, ``git filter-branch``; a push that
  rewrites or deletes remote history (``--force``, ``+ref``, ``--mirror``,
  ``--delete``, ``:ref``, ``--prune``);
* a download run as code: piped into a shell or interpreter that reads its
  script from standard input (``curl … | sh``; not ``| python3 -m
  json.tool``), substituted into one (``sh -c "$(curl …)"``, ``eval``,
  ``source <(curl …)``, ``bash < <(curl …)``), or saved and then run
  (``curl -o x.sh … && sh x.sh``, ``./x.sh``, ``source x.sh``);
* a write outside the repository: a redirection, or a ``tee``, ``cp``,
  ``mv`` (source too), ``install`` (``-d``), ``ln``, ``dd of=``, ``rm``,
  ``touch``, ``mkdir``, ``truncate``, ``sed -i``, ``find -fprint`` target
  that is absolute and not under the root, leaves it with ``..`` or a
  symbolic link (links are resolved: the only disk access here), starts
  with ``~`` or is named by a variable; ``/dev/null``, ``/dev/stdout``,
  ``/dev/stderr``, ``/dev/tty``, ``/dev/fd/N`` and descriptor copies such
  as ``2>&1`` are not writes;
* a program planted for git to run: a write into ``.git/hooks``,
  ``.git/config`` or ``.git`` itself (``chmod +x`` included), ``git config``
  of a key naming a program (``core.fsmonitor``, ``core.hooksPath``,
  ``core.sshCommand``, ``core.pager``, ``diff.*.textconv``,
  ``filter.*.clean``, ``credential.helper``, an ``!`` alias …), the same
  with ``git -c`` or a ``GIT_SSH_COMMAND``-like variable;
* ``sudo`` and the like, ``mkfs``, ``chmod``/``chown``/``chgrp`` outside the
  repository (``chmod -R 777 /``);
* a command it cannot read: a syntax error or unclosed quote, a brace
  expansion too large, scripts nested more than :data:`MAX_DEPTH` deep.

Limits: nothing is executed, so what only the running shell knows stays
unknown: a command named by a variable (``$CMD``), an alias or function
defined before this command, a script file in the repository (its content is
not read), what a program does once started (``python -c
"open('/etc/x','w')"``, ``make``, ``npm``, ``tar -x -C /``, ``git worktree
add ../x``, git aliases and hooks already in place). A variable used as a
path counts as outside; a ``cd`` to a variable makes later relative paths
unknown; ``CDPATH`` is not followed. A script a shell reads from another
program's output (``… | base64 -d | sh``, ``cat x.sh | bash``) is not read.
A download is followed to the file it saves when the name is written in the
command (not ``curl -OJ``, nor a copy or rename of the file). ``git checkout
NAME`` with no ``--`` reads as a branch. Syntax the grammar does not know
(``3<>file``, two here-documents on one line, ``cmd <<EOF; next``) counts as
unreadable. A program can still write anywhere its sandbox allows; the
dialog always shows the whole command, and the user's reading of it is the
real check.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ljtui.core.agent.bash_syntax import (BraceLimitExceeded, Command, Redirect, Script, SimpleCommand,
                                          Subshell, Word, commands_of, inner_commands, literal_word, parse)
from ljtui.core.agent.danger_commands import (AS_ROOT, ASSIGNMENT, FORMATTERS, OWNER_TOOLS, Invocation,
                                              find_execs, find_starts, owner_targets, recursive_delete,
                                              split_options, unwrap, write_targets)
from ljtui.core.agent.danger_git import env_reason, git_reason, git_scripts, git_writes
from ljtui.core.agent.danger_paths import Paths, Places, capped
from ljtui.core.agent.danger_scripts import (DOWNLOADERS, FILE, INTERPRETER, SHELLS, STDIN, STDIN_FILES, TEXT,
                                             download_outputs, printed_text, script_source)

MAX_DEPTH = 4
"""Nesting of ``bash -c`` / ``eval`` / ``$(…)`` read before the command counts as dangerous."""
DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly"})
WATCH_VALUE_OPTIONS = {"-n", "--interval", "-q", "--equexit"}
OUTPUT_DESCRIPTOR = 1
INPUT_DESCRIPTOR = 0


def danger_of(command: str, root: Path) -> str | None:
    """A short reason when ``command`` looks dangerous, else ``None``.

    Args:
        command: the shell text, as bash would receive it.
        root: the repository root (where the command runs).
    """
    return _Checker(os.path.realpath(root)).check(parse(command))


class _Found(Exception):
    """A reason was found: the walk stops."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class _Feed:
    """What a command's standard input carries: script text a shell would run, or a download."""

    text: str | None = None
    download: bool = False


NOTHING = _Feed()


class _Checker:
    """Walks one parsed command for one repository root."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.downloads: set[str] = set()
        """Files saved by a download earlier in the command (resolved paths)."""
        self.paths = Paths(root)
        self.invocations: dict[int, tuple[SimpleCommand, Invocation]] = {}
        """What each simple command seen runs, by identity (the command is kept so its id stays its own)."""

    def check(self, script: Script) -> str | None:
        try:
            self.script(script, Places({self.root}), 0, NOTHING)
        except _Found as found:
            return found.reason
        except RecursionError:
            return "commands nested too deeply to check"
        return None

    # structure

    def script(self, script: Script, places: Places, depth: int, feed: _Feed) -> Places:
        if depth > MAX_DEPTH:
            raise _Found("commands nested too deeply to check")
        if script.problem:
            raise _Found(f"{script.problem}, so it cannot be checked")
        for chain in script.chains:
            seen = set(places)
            current = places
            for i, pipeline in enumerate(chain.pipelines):
                after = current
                flowing = feed
                last = len(pipeline.commands) - 1
                for j, command in enumerate(pipeline.commands):
                    result = self.command(command, current, depth, flowing)
                    after = result if j == last else after
                    if j < last:
                        downloaded = flowing.download or self.downloads_in([command, *inner_commands(command)])
                        flowing = _Feed(self.printed(command), downloaded)
                seen |= after
                current = current if chain.operators[i:i + 1] == ("||",) else after
            if not chain.background:
                places = capped(Places(seen))
        return places

    def command(self, command: Command, places: Places, depth: int, feed: _Feed) -> Places:
        for word in command.all_words:
            for inner in word.scripts:
                self.script(inner, places, depth + 1, NOTHING)
        self.redirect_writes(command.redirects, places)
        stdin = self.stdin(command.redirects, feed, places)
        if isinstance(command, SimpleCommand):
            return self.simple(command, places, depth, stdin)
        if isinstance(command, Subshell):
            self.script(command.body, places, depth, stdin)
            return places
        current = places
        for body in command.bodies:
            current = capped(current | self.script(body, current, depth, stdin))
        return current

    def invocation(self, command: SimpleCommand) -> Invocation:
        """What ``command`` really runs (read once per command)."""
        known = self.invocations.get(id(command))
        if known is not None:
            return known[1]
        try:
            found = _unwrapped(list(command.argv()))
        except BraceLimitExceeded:
            raise _Found("a brace expansion too large to check") from None
        self.invocations[id(command)] = (command, found)
        return found

    def downloads_in(self, commands: Iterable[Command]) -> bool:
        """Whether one of ``commands`` (not looking inside them) is a download."""
        return any(isinstance(c, SimpleCommand) and self.invocation(c).name in DOWNLOADERS for c in commands)

    def simple(self, command: SimpleCommand, places: Places, depth: int, stdin: _Feed) -> Places:
        run = self.invocation(command)
        for name, value in [(a.name, a.value.shown) for a in command.assignments] + run.env:
            _raise(env_reason(name, value))
        here = places if run.chdir is None else Places(self.paths.place(run.chdir, p) for p in places)
        name, args = run.name, run.args
        if (name in SHELLS or INTERPRETER.match(name)) and script_source(name, args)[0] == STDIN and stdin.download:
            raise _Found("pipes a download into a shell (curl | sh)")
        if name in AS_ROOT or any(w in AS_ROOT for w in run.wrappers):
            raise _Found("runs as another user (sudo)")
        if name in DOWNLOADERS:
            saved = download_outputs(name, args)
            saved += [r.target.shown for r in command.redirects
                      if r.writes and r.target is not None and r.descriptor == OUTPUT_DESCRIPTOR]
            self.remember(saved, here)
        if name == "tee" and stdin.download:
            self.remember(split_options(args)[1], here)
        after = self.run(run, here, depth, stdin)
        return places if run.chdir is not None else after

    def run(self, run: Invocation, places: Places, depth: int, stdin: _Feed) -> Places:
        """Check the command ``run`` names; the directories it leaves the shell in (``cd``)."""
        name, args, words = run.name, run.args, run.argv
        if not name:
            return places
        if name in ("cd", "pushd"):
            operands = [a for a in args if not a.startswith("-") or a == "-"]
            return capped(Places(self.paths.place(operands[0] if operands else "~", p) for p in places))
        if name == "popd":
            return Places({None})
        if name.startswith("mkfs") or name in FORMATTERS:
            raise _Found("formats a filesystem (mkfs)")
        self.scripts_run(run, places, depth, stdin)
        if "/" in words[0].shown:
            self.refuse_downloaded(words[0].shown, places)
        _raise(recursive_delete(name, args) or (git_reason(args) if name == "git" else None))
        if name in DECLARATIONS:
            for arg in args:
                match = ASSIGNMENT.match(arg)
                _raise(env_reason(match.group(1), match.group(2)) if match else None)
        if name == "find":
            self.find_execs(words, places, depth)
        self.writes(write_targets(name, args) + (git_writes(args) if name == "git" else []), places)
        if name in OWNER_TOOLS:
            self.owner(name, args, places)
        if name == "git":
            for script in git_scripts(args):
                self.script(parse(script), places, depth + 1, NOTHING)
        return places

    def scripts_run(self, run: Invocation, places: Places, depth: int, stdin: _Feed) -> None:
        """Check the script a shell, an interpreter, ``eval``, ``source``, ``watch``, ``trap`` or ``alias`` runs."""
        name, args, words = run.name, run.args, run.argv
        if name in SHELLS or INTERPRETER.match(name):
            kind, index = script_source(name, args)
            word = words[index + 1] if index is not None and index + 1 < len(words) else None
            if word is not None and self.downloads_in(_inner(word)):
                raise _Found("runs a download with a shell (curl | sh)")
            if kind == FILE and word is not None:
                self.refuse_downloaded(word.shown, places)
            if name in SHELLS and kind == TEXT and word is not None:
                self.script(parse(word.shown), places, depth + 1, NOTHING)
            if name in SHELLS and kind == STDIN and stdin.text is not None:
                self.script(parse(stdin.text), places, depth + 1, NOTHING)
        elif name == "eval":
            if any(self.downloads_in(_inner(w)) for w in words[1:]):
                raise _Found("runs a download with a shell (eval \"$(curl …)\")")
            self.script(parse(" ".join(args)), places, depth + 1, NOTHING)
        elif name in ("source", ".") and len(words) > 1:
            if self.downloads_in(_inner(words[1])) or (words[1].shown in STDIN_FILES and stdin.download):
                raise _Found("runs a download with a shell (source <(curl …))")
            if words[1].shown in STDIN_FILES and stdin.text is not None:
                self.script(parse(stdin.text), places, depth + 1, NOTHING)
            self.refuse_downloaded(words[1].shown, places)
        elif name == "watch":
            operands = split_options(args, WATCH_VALUE_OPTIONS)[1]
            self.script(parse(" ".join(operands)), places, depth + 1, NOTHING)
        elif name == "trap":
            operands = args[1:] if args[:1] == ["--"] else args
            if operands and not operands[0].startswith("-"):
                self.script(parse(operands[0]), places, depth + 1, NOTHING)
        elif name == "alias":
            for arg in args:
                if "=" in arg:
                    self.script(parse(arg.split("=", 1)[1]), places, depth + 1, NOTHING)

    def find_execs(self, words: list[Word], places: Places, depth: int) -> None:
        """Check each ``find -exec`` command as a command, ``{}`` standing for each start point."""
        args = [w.shown for w in words[1:]]
        for start, end in find_execs(args):
            for origin in find_starts(args):
                argv = [literal_word(w.shown.replace("{}", origin)) if "{}" in w.shown else w
                        for w in words[start + 1:end + 1]]
                self.run(_unwrapped(argv), places, depth + 1, NOTHING)

    # files

    def stdin(self, redirects: tuple[Redirect, ...], feed: _Feed, places: Places) -> _Feed:
        """What standard input carries once the command's own redirections apply."""
        current = feed
        for redirect in redirects:
            if redirect.descriptor != INPUT_DESCRIPTOR:
                continue
            if redirect.heredoc is not None:
                current = _Feed(redirect.heredoc.body, self.downloads_in(_inner(*redirect.heredoc.words)))
            elif redirect.operator == "<<<" and redirect.target is not None:
                current = _Feed(redirect.target.shown + "\n", self.downloads_in(_inner(redirect.target)))
            elif redirect.operator == "<" and redirect.target is not None:
                target = redirect.target
                saved = any(self.paths.place(target.shown, p) in self.downloads for p in places)
                current = _Feed(None, saved or self.downloads_in(_inner(target)))
            else:
                current = NOTHING
        return current

    def redirect_writes(self, redirects: tuple[Redirect, ...], places: Places) -> None:
        for redirect in redirects:
            if redirect.writes and redirect.target is not None:
                self.writes([w.shown for w in _expanded(redirect.target)], places)

    def writes(self, targets: list[str], places: Places) -> None:
        """Raise when one of ``targets`` is outside the repository or plants something in ``.git``."""
        for target in targets:
            _raise(self.paths.write_reason(target, places))

    def owner(self, name: str, args: list[str], places: Places) -> None:
        targets, recursive = owner_targets(args)
        for target in targets:
            _raise(self.paths.mode_reason(name, target, recursive, places))

    def remember(self, saved: list[str], places: Places) -> None:
        self.downloads.update(p for s in saved for p in (self.paths.place(s, q) for q in places) if p is not None)

    def refuse_downloaded(self, path: str, places: Places) -> None:
        if any(self.paths.place(path, p) in self.downloads for p in places):
            raise _Found(f"runs a downloaded file ({path})")

    def printed(self, command: Command) -> str | None:
        """The text a pipe carries from ``command`` when it prints literal text (``echo``, ``printf``, ``cat <<``)."""
        if not isinstance(command, SimpleCommand):
            return None
        run = self.invocation(command)
        if run.name == "cat" and not split_options(run.args)[1]:
            return self.stdin(command.redirects, NOTHING, Places()).text
        return printed_text(run.name, run.args)


def _unwrapped(argv: list[Word]) -> Invocation:
    try:
        return unwrap(argv)
    except ValueError:
        raise _Found("its quoting (env -S) could not be read, so it cannot be checked") from None


def _expanded(word: Word) -> tuple[Word, ...]:
    try:
        return word.expand()
    except BraceLimitExceeded:
        raise _Found("a brace expansion too large to check") from None


def _inner(*words: Word) -> list[Command]:
    """Every command the substitutions of ``words`` run."""
    return [c for w in words for s in w.scripts for c in commands_of(s)]


def _raise(reason: str | None) -> None:
    if reason:
        raise _Found(reason)
