"""Entry point of the ``ljtui`` command.

``ljtui`` alone opens the full-screen app in the current repository.
Sub-commands for headless use live in modules named ``cmd_<name>.py`` in
this package; each defines ``register(subparsers)`` and sets ``func`` on its
parser. Textual is imported only when the full-screen app starts.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
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


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    """Flags that choose the model, shared by every command that calls one."""
    group = parser.add_argument_group("model")
    group.add_argument("--provider", choices=PROVIDER_NAMES, help="model provider (default: anthropic)")
    group.add_argument("--model", help="model name sent to the provider")
    group.add_argument("--base-url", dest="base_url", help="provider endpoint (e.g. http://127.0.0.1:11434/v1)")
    group.add_argument("--script", help="YAML script replayed by the scripted provider")
    group.add_argument("--repo", type=Path, default=None, help="repository to work in (default: current directory)")


def model_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The dotted config keys set by :func:`add_model_flags`."""
    return {
        "provider.name": args.provider,
        "provider.model": args.model,
        "provider.base_url": args.base_url,
        "provider.script": args.script,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ljtui",
        description="A terminal coding agent: precise, reviewable, verifiable changes to a real repository.",
    )
    parser.add_argument("--version", action=_VersionAction)
    add_model_flags(parser)
    parser.add_argument("--theme", help="theme name (dark, light, high-contrast, or one of yours)")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module in _command_modules():
        module.register(subparsers)
    parser.set_defaults(func=run_app)
    return parser


def _command_modules() -> list:
    import ljtui.cli as package

    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith("cmd_"))
    return [importlib.import_module(f"ljtui.cli.{name}") for name in names]


def run_app(args: argparse.Namespace) -> int:
    """Open the full-screen app."""
    from ljtui.tui.app import LjtuiApp

    overrides = model_overrides(args)
    overrides["ui.theme"] = args.theme
    app = LjtuiApp(repo_root=(args.repo or Path.cwd()).resolve(), overrides=overrides)
    app.run()
    return app.return_code or 0


def recover_leftover_journal(args: argparse.Namespace) -> None:
    """Roll back an apply a crash left unfinished, and say what was restored on stderr.

    Costs a few ``stat`` calls when there is no journal; imports no UI.
    """
    if getattr(args, "skip_auto_recover", False):
        return
    from ljtui.core.edits.journal import journal_dir
    from ljtui.core.edits.paths import find_repo_root

    root = find_repo_root(getattr(args, "repo", None) or Path.cwd())
    if not journal_dir(root).is_dir():
        return
    from ljtui.core.edits.recovery import recover_journal

    for line in recover_journal(root).summary():
        print(line, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    recover_leftover_journal(args)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
