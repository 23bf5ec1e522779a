"""Where a shell or interpreter takes its script, and where a download or a printed text goes.

Pure functions over a command's words for :mod:`~ljtui.core.agent.danger`:
which argument (or standard input, or a file) a shell or an interpreter
reads as its program (:func:`script_source`; ``python3 -m json.tool``
reads standard input as data), which files ``curl``/``wget`` save
(:func:`download_outputs`), and the text ``echo``/``printf`` would write
to a pipe (:func:`printed_text`).
"""

from __future__ import annotations

import re

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
INTERPRETER = re.compile(r"^(?:python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|php[\d.]*)$")
DOWNLOADERS = frozenset({"curl", "wget", "aria2c"})
SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
INTERPRETER_OPTIONS = {
    "python": ("c", "m", "WX"), "pypy": ("c", "m", "WX"), "perl": ("eE", "", "IMmx"), "ruby": ("e", "", "rIC"),
    "node": ("ep", "", "r"), "nodejs": ("ep", "", "r"), "php": ("r", "", "dcfz")}
"""Short options per interpreter: those whose value is code, those naming a module, those taking a value."""
INTERPRETER_LONG_CODE = frozenset({"--eval", "--print"})
CURL_VALUES = frozenset("AbcCdDeEFHKmorTtuUwxXYyzPQ")
"""``curl`` short options that take a value."""
WGET_VALUES = frozenset("OoaiPtTwelUBQADRIX")
"""``wget`` short options that take a value."""
DEFAULT_PAGE = "index.html"
PRINTF_DIRECTIVE = re.compile(r"%(?:%|[-+ #0]*\d*(?:\.\d+)?[a-zA-Z])")
PRINTF_ESCAPES = {"\\n": "\n", "\\t": "\t", "\\\\": "\\"}
STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
"""Script file names that mean standard input."""
STDIN, TEXT, FILE, NONE = "stdin", "text", "file", "none"
"""Where a shell or interpreter takes its script: standard input, an argument, a file operand, nowhere we read."""


def script_source(name: str, args: list[str]) -> tuple[str, int | None]:
    """Where a shell or interpreter named ``name`` reads its script: ``(STDIN|TEXT|FILE|NONE, index in args)``."""
    kind, index = _source(name, args)
    if kind == FILE and index is not None and index < len(args) and args[index] in STDIN_FILES:
        return STDIN, None
    return kind, index


def _source(name: str, args: list[str]) -> tuple[str, int | None]:
    if name in SHELLS:
        return _shell_source(args)
    family = re.sub(r"[\d.]+$", "", name)
    code, module, valued = INTERPRETER_OPTIONS.get(family, ("", "", ""))
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-":
            return STDIN, None
        if arg == "--":
            return (FILE, i + 1) if i + 1 < len(args) else (STDIN, None)
        if arg in INTERPRETER_LONG_CODE:
            return TEXT, i + 1 if i + 1 < len(args) else None
        if not arg.startswith("-") or len(arg) < 2:
            return FILE, i
        if not arg.startswith("--"):
            for j, letter in enumerate(arg[1:], start=2):
                if letter in code or letter in module:
                    kind = TEXT if letter in code else NONE
                    return kind, (i if arg[j:] else i + 1)
                if letter in valued:
                    i += 0 if arg[j:] else 1
                    break
        i += 1
    return STDIN, None


def _shell_source(args: list[str]) -> tuple[str, int | None]:
    command = stdin = False
    i = 0
    while i < len(args) and args[i][:1] in ("-", "+") and len(args[i]) > 1:
        arg = args[i]
        if arg in ("--", "-"):
            i += 1
            break
        if arg in SHELL_VALUE_OPTIONS:
            i += 2
            continue
        if not arg.startswith("--"):
            command = command or "c" in arg[1:]
            stdin = stdin or "s" in arg[1:]
        i += 1
    if command:
        return TEXT, i if i < len(args) else None
    if stdin or i >= len(args):
        return STDIN, None
    return FILE, i


def download_outputs(name: str, args: list[str]) -> list[str]:
    """The files a ``curl``/``wget``/``aria2c`` call saves (empty when it writes to standard output)."""
    if name == "aria2c":
        return []
    values = CURL_VALUES if name == "curl" else WGET_VALUES
    named: list[str] = []
    urls: list[str] = []
    remote = name == "wget"
    directory = ""
    i = 0
    while i < len(args):
        arg = args[i]
        following = args[i + 1] if i + 1 < len(args) else ""
        long, _, inline = arg.partition("=")
        if arg.startswith("--"):
            taken = inline if "=" in arg else following
            if long in ("--output", "--output-document"):
                named.append(taken)
            elif long in ("--remote-name", "--remote-name-all"):
                remote = True
            elif long in ("--output-dir", "--directory-prefix"):
                directory = taken
            i += 1 if "=" in arg or long not in ("--output", "--output-document", "--output-dir",
                                                 "--directory-prefix") else 2
            continue
        if arg.startswith("-") and len(arg) > 1:
            for j, letter in enumerate(arg[1:], start=2):
                if letter == "O" and name == "curl":
                    remote = True
                elif letter in values:
                    value = arg[j:] or following
                    if (letter == "o" and name == "curl") or (letter == "O" and name == "wget"):
                        named.append(value)
                        remote = False if name == "wget" else remote
                    elif letter == "P" and name == "wget":
                        directory = value
                    i += 0 if arg[j:] else 1
                    break
            i += 1
            continue
        urls.append(arg)
        i += 1
    saved = [n for n in named if n != "-"]
    if remote and not named:
        saved += [_remote_name(url) for url in urls]
    return [f"{directory.rstrip('/')}/{s}" if directory and not s.startswith("/") else s for s in saved]


def _remote_name(url: str) -> str:
    path = url.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1] if "/" in path else ""
    return name or DEFAULT_PAGE


def printed_text(name: str, args: list[str]) -> str | None:
    """What ``echo`` or ``printf`` with these arguments prints (approximately), else ``None``."""
    if name == "echo":
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return " ".join(args) + "\n"
    if name != "printf" or not args:
        return None
    form, values = args[0], list(args[1:])
    for escape, char in PRINTF_ESCAPES.items():
        form = form.replace(escape, char)
    out: list[str] = []
    while True:
        used = False

        def directive(match: re.Match[str]) -> str:
            nonlocal used
            if match.group(0) == "%%":
                return "%"
            used = True
            return values.pop(0) if values else ""

        out.append(PRINTF_DIRECTIVE.sub(directive, form))
        if not values or not used:
            return "".join(out)
