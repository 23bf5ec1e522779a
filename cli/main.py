"""Entry point of the ``ljtui`` command.

``ljtui`` alone opens the full-screen app in the current repository.
Sub-commands for headless use live in modules named ``cmd_<name>.py`` in
this package, listed in :data:`COMMANDS`; each defines
``register(subparsers)`` and sets ``func`` on its parser. Only the chosen
command's module is imported, and Textual only when a screen opens.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
from pathlib import Path
from typing import Sequence

from ljtui.core.config import PROVIDER_NAMES


def package_version() -> str:
    """The installed ljtui version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ljtui")
    except PackageNotFoundError:
        return "0+unknown"


class _VersionAction(argparse.Action):
    """``--version``, reading package metadata only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        print(f"ljtui {package_version()}")
        parser.exit()


REPO_HELP = "repository to work in (default: the one holding the current directory)"


def add_model_flags(parser: argparse.ArgumentParser, *, top_level: bool = False, repo_help: str = REPO_HELP) -> None:
    """Flags that choose the model and the repository, shared by ``ljtui`` and its commands.

    They work before or after the command name: a command's own parser
    leaves a flag it was not given untouched, so ``ljtui --provider scripted
    plan …`` and ``ljtui plan --provider scripted …`` mean the same.
    ``repo_help`` is what ``--repo`` means to the command, when it is not the repository it works in.
    """
    default = None if top_level else argparse.SUPPRESS
    group = parser.add_argument_group("model")
    group.add_argument("--provider", choices=PROVIDER_NAMES, default=default,
                       help="model provider (default: anthropic)")
    group.add_argument("--model", default=default, help="model name sent to the provider")
    group.add_argument("--base-url", dest="base_url", default=default,
                       help="provider endpoint (e.g. http://127.0.0.1:11434/v1)")
    group.add_argument("--script", default=default, help="YAML script replayed by the scripted provider")
    where = parser.add_argument_group("repository")
    where.add_argument("--repo", type=Path, default=default, help=repo_help)


def add_resume_flags(parser: argparse.ArgumentParser, *, top_level: bool = False) -> None:
    """``--resume ID`` and ``--continue``: go on with a saved session (``ljtui sessions`` lists them)."""
    default = None if top_level else argparse.SUPPRESS
    group = parser.add_argument_group("session").add_mutually_exclusive_group()
    group.add_argument("--resume", metavar="ID", nargs="?", const="", default=default,
                       help="continue the saved session ID (`ljtui sessions` lists them), or the newest one")
    group.add_argument("--continue", dest="resume", action="store_const", const="", default=default,
                       help="continue the newest saved session")


def model_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The dotted config keys set by :func:`add_model_flags`."""
    return {
        "provider.name": getattr(args, "provider", None),
        "provider.model": getattr(args, "model", None),
        "provider.base_url": getattr(args, "base_url", None),
        "provider.script": getattr(args, "script", None),
    }


COMMANDS: dict[str, str] = {
    "acp": "speak the Agent Client Protocol on stdin/stdout, for an editor to drive",
    "apply": "apply an EDIT plan atomically",
    "doctor": "which sandbox confines commands here, and how the API key is kept",
    "gates": "delivery gates: list, show, check, deliver, discard, rework",
    "hooks": "list the hooks: yours and a trusted repository's, and how each last ran",
    "layer": "the copy-on-write layer: diff, apply or drop what the agent changed",
    "mcp": "the MCP servers sessions here would use: their state and tools",
    "plan": "write a checked EDIT plan for a request, reading the source only",
    "playbook": "list, show, search, promote, deprecate or draft playbooks; their stats; the gates",
    "recover": "restore files of an unfinished apply to their pre-apply bytes",
    "review": "open an EDIT plan in the Diff pane to accept, reject and apply its blocks",
    "rewind": "go back to before an earlier message: the files, the conversation or both",
    "run": "run one request through the engine with no UI",
    "sessions": "list the conversations saved in this repository",
    "stats": "how task-plan runs went: first-try success, replans, failing tool hints",
    "trust": "trust a repository's own settings (endpoints, commands), or revoke that",
    "undo": "revert the last applied plan (again: the one before)",
}
"""Sub-commands and their one-line help. Each lives in ``cmd_<name>.py``,
imported only when that command runs, so ``ljtui`` starts fast."""

TOP_LEVEL_VALUE_OPTIONS = frozenset({"--provider", "--model", "--base-url", "--script", "--repo", "--theme"})
OPTIONAL_VALUE_OPTIONS = frozenset({"--resume"})
"""Top-level options whose value may be left out: a command name after one is the command."""


def chosen_command(argv: Sequence[str]) -> str | None:
    """The sub-command named in ``argv``, skipping top-level option values."""
    skip = maybe = False
    for token in argv:
        if skip:
            skip = False
        elif maybe and not token.startswith("-") and token not in COMMANDS:
            maybe = False
        elif token in TOP_LEVEL_VALUE_OPTIONS:
            skip = True
        elif token in OPTIONAL_VALUE_OPTIONS:
            maybe = True
        elif not token.startswith("-"):
            return token if token in COMMANDS else None
        else:
            maybe = False
    return None


def split_optional_values(argv: Sequence[str]) -> list[str]:
    """``--resume run …`` as ``--resume= run …``: a command name is never an option's value."""
    out: list[str] = []
    for i, token in enumerate(argv):
        following = argv[i + 1] if i + 1 < len(argv) else None
        out.append(f"{token}=" if token in OPTIONAL_VALUE_OPTIONS and following in COMMANDS else token)
    return out


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``ljtui`` parser; only the command chosen in ``argv`` is imported."""
    parser = argparse.ArgumentParser(
        prog="ljtui",
        description="A terminal coding agent: precise, reviewable, verifiable changes to a real repository. "
                    "With no command, ljtui opens the full-screen app in the repository.",
    )
    parser.add_argument("--version", action=_VersionAction)
    add_model_flags(parser, top_level=True)
    parser.add_argument("--theme", help="theme name (dark, light, high-contrast, or one of yours)")
    parser.add_argument("--demo", action="store_true",
                        help="a guided tour on a copy of a sample project, offline, with a recorded model")
    add_resume_flags(parser, top_level=True)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    chosen = chosen_command(argv)
    for name, help_text in COMMANDS.items():
        if name == chosen:
            importlib.import_module(f"ljtui.cli.cmd_{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=help_text, add_help=False)
    parser.set_defaults(func=run_app)
    return parser


def run_app(args: argparse.Namespace) -> int:
    """Open the full-screen app."""
    from ljtui.tui.app import LjtuiApp

    root = repo_root_arg(args, "ljtui")
    if root is None:
        return 2
    overrides = model_overrides(args)
    overrides["ui.theme"] = args.theme
    app = LjtuiApp(repo_root=root, overrides=overrides, recover=True, resume=args.resume)
    app.run()
    from ljtui.tui.quit_line import resume_line

    line = resume_line(app)
    if line is not None:
        print(line)
    return app.return_code or 0


def repo_root_arg(args: argparse.Namespace, prog: str) -> Path | None:
    """The repository a command works in: ``--repo`` or the current directory, up to
    the nearest folder holding ``.git`` (a plain folder with none above it is its own root).
    ``None`` (with the reason on stderr) when the folder does not exist (a typo never
    creates a tree) or may not be a session root (:func:`refused_root`)."""
    start = getattr(args, "repo", None) or Path.cwd()
    if not start.is_dir():
        from ljtui.cli.output import visible

        print(f"{prog}: --repo {visible(str(start), exact=True)}: not a directory", file=sys.stderr)
        return None
    from ljtui.core.edits.paths import find_repo_root

    root = find_repo_root(start)
    return None if refused_root(prog, root, start) else root


def refused_root(prog: str, root: Path, start: Path | None = None) -> bool:
    """Whether ``root`` may not be a session root (``/``, the home folder, or a folder holding ljtui's own
    config or state: :mod:`ljtui.core.session_root`); if so, why is said on stderr.

    Args:
        prog: the command, first on the line.
        root: the repository found.
        start: the folder asked for, named too when the repository was found above it.
    """
    from ljtui.core.session_root import place_refusal

    refusal = place_refusal(root)
    if refusal is None:
        return False
    from ljtui.cli.output import echo
    from ljtui.core.session_root import UnsafeRoot

    echo(f"{prog}: {UnsafeRoot(refusal, start).message}", sys.stderr, exact=True)
    return True


STARTUP_RECOVERY_FILES = 10
"""Files listed per recovered apply when recovery runs before a command (the rest are counted)."""


def recover_leftover_journal(args: argparse.Namespace) -> None:
    """Roll back an apply a crash left unfinished in the repository the command works in (``plan``'s
    ``--source``, else ``--repo`` or the one holding the current directory), and say what was restored on stderr.

    Costs a few ``stat`` calls when there is no journal; imports no UI.
    """
    if getattr(args, "skip_auto_recover", False) or getattr(args, "func", None) is run_app:
        return
    from ljtui.core.edits.journal import journal_dir

    start = getattr(args, "source", None) or getattr(args, "repo", None) or Path.cwd()  # plan works in --source
    if not start.is_dir():
        return
    from ljtui.core.edits.paths import find_repo_root

    root = find_repo_root(start)
    if not journal_dir(root).is_dir():
        return
    from ljtui.core.session_root import place_refusal

    if place_refusal(root) is not None:  # the command refuses it, and says why; nothing is written there
        return
    from ljtui.cli.output import echo
    from ljtui.core.edits.recovery import recover_journal

    for line in recover_journal(root).summary(max_files=STARTUP_RECOVERY_FILES):
        echo(line, sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    argv = split_optional_values(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.demo:  # the demo makes a repository of its own: nothing where it starts is recovered
        from ljtui.cli.demo import run_demo

        args.func = functools.partial(run_demo, command=chosen_command(argv))
    else:
        recover_leftover_journal(args)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


def entry() -> int:
    """The ``ljtui`` program: keys out of the environment and the process closed to others, then :func:`main`."""
    from ljtui.core.provider_keys import protect_process

    protect_process()
    return main()


if __name__ == "__main__":
    sys.exit(entry())
