"""``ljtui doctor``: the model in use, which sandbox confines commands here and why, and how the key is kept.

It says which model a session would use and, when none can work, every way
to set one up (what a failed call points to), and the model's context window
and where that number comes from (:mod:`ljtui.cli.doctor_model`). It finds
the sandbox exactly as a session does (with the user's ``agent.sandbox``
settings, and the same self-test: a command that tries to write outside its
place must be refused) and prints:

* the backend (``landlock``, ``bubblewrap`` or ``unsandboxed``) and why it
  was chosen, the kernel's Landlock ABI and what it covers, whether
  bubblewrap is on ``PATH`` and works;
* what a command may do (writable places, network), the
  ``agent.sandbox.write_paths`` entries that are ignored (missing), and those
  left out because they are, hold or lie inside a folder no command may
  write (ljtui's own config and state folders, the home folder as a whole,
  ``/``: :mod:`ljtui.core.session_root`), and which folders those are;
* whether ljtui's process is non-dumpable (its memory and environment closed
  to other processes), which provider keys it holds outside its environment,
  and which credential variables commands do not get (names only).

Run in a folder ljtui does not work in (``/``, the home folder, one
holding ljtui's own folders: :mod:`ljtui.core.session_root`), it says so
and why, and reports what a project folder would get.

``--json`` prints the same as one object. Exit status: 0 commands are
sandboxed; 1 they are not (unsandboxed); 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

EXIT_SANDBOXED = 0
EXIT_UNSANDBOXED = 1
EXIT_USAGE = 2
PROG = "ljtui doctor"
LABEL_WIDTH = 16
LANDLOCK_FEATURES: tuple[tuple[int, str], ...] = (
    (1, "writes"), (2, "renames across folders"), (3, "truncation"), (4, "TCP connect and bind"),
    (5, "device ioctls"), (6, "signal and abstract-socket scoping"), (7, "audit logs"))
"""What each Landlock ABI added, as far as ljtui uses it."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``doctor`` command."""
    from ljtui.cli.main import add_model_flags

    parser = subparsers.add_parser(
        "doctor", help="which sandbox confines commands here, and how the key is kept",
        description="Find the sandbox ljtui's commands run in (with your agent.sandbox settings and a real "
                    "self-test) and say why; show what commands may do, and how the API key is kept from them.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_model_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ljtui.cli.main import model_overrides
    from ljtui.core.edits.paths import find_repo_root
    from ljtui.core.session_root import UnsafeRoot, place_refusal

    start = getattr(args, "repo", None) or Path.cwd()
    if not start.is_dir():
        from ljtui.cli.output import echo

        echo(f"{PROG}: --repo {start}: not a directory", sys.stderr)
        return EXIT_USAGE
    root = find_repo_root(start)
    refusal = place_refusal(root)
    if refusal is None:
        report = gather(root, model_overrides(args))
    else:  # a folder ljtui does not work in: what a project folder would get, and why not here
        with tempfile.TemporaryDirectory(prefix="ljtui-doctor-") as project:
            report = gather(Path(project), model_overrides(args))
        report["repository"] = str(root)
        report["refused"] = UnsafeRoot(refusal, start).message
    if args.json:
        print(json.dumps(report, indent=2))  # ASCII only: every other character, controls too, is an escape
    else:
        from ljtui.cli.output import echo

        echo("\n".join(render(report)))  # paths and warnings (a repository's config) with controls visible
    return EXIT_SANDBOXED if report["sandbox"]["confined"] else EXIT_UNSANDBOXED


def gather(root: Any, overrides: dict[str, object]) -> dict[str, Any]:
    """Everything the report shows, as plain data."""
    from ljtui.cli.doctor_model import context_window_report
    from ljtui.core import provider_keys
    from ljtui.core.childenv import SECRET_ENV_VARS, is_credential
    from ljtui.core.config import load_config
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.providers import provider_label, provider_problem
    from ljtui.core.session_root import guarded_folders

    from ljtui.core.layer.service import Layer
    from ljtui.core.layer.view import HIDDEN_FOLDERS

    loaded = load_config(root, provider_keys.environment(), overrides)
    settings = loaded.config.agent.sandbox
    layer = Layer(root, loaded.config.agent.layer)
    sandbox = CommandSandbox(root, settings.backend, write_paths=settings.write_paths, network=settings.network,
                             pass_env=loaded.config.agent.pass_env, layer=layer, read_paths=settings.read_paths)
    try:
        status = sandbox.status
        rules = sandbox.rules(root, layered=True)
        allows = rules.describe() if status.confined or sandbox.layered else "everything you may do"
        view = sandbox.home_view()
    finally:
        sandbox.close()
    program = shutil.which("bwrap")
    withheld = sorted(k for k, v in os.environ.items()
                      if k not in sandbox.pass_env and (k in SECRET_ENV_VARS or is_credential(k, v)))
    return {
        "repository": str(root),
        "model": {"label": provider_label(loaded.config.provider),
                  "problem": provider_problem(loaded.config.provider, provider_keys.environment()),
                  "context_window": context_window_report(loaded.config.provider, provider_keys.environment())},
        "sandbox": {"backend": status.backend, "confined": status.confined, "why": status.why,
                    "landlock_abi": status.abi, "landlock_covers": covers(status.abi),
                    "bwrap": program, "allows": allows, "network_enforced": status.network_enforced,
                    "ignored_write_paths": sandbox.missing_write_paths(),
                    "refused_write_paths": [{"entry": entry, "why": why}
                                            for entry, why in sandbox.refused_write_paths()],
                    "never_writable": [{"folder": f.path, "what": f.label}
                                       for f in guarded_folders() if f.own],
                    "setting": settings.backend},
        "layer": {"mode": layer.status.mode, "why": layer.status.why, "setting": loaded.config.agent.layer,
                  "ask_commands": loaded.config.agent.ask_commands, "home": str(view.home) if view.home else None,
                  "home_visible": [{"path": str(p), "why": why} for p, why in view.visible],
                  "read_paths": [str(p) for p in view.granted], "hidden": list(HIDDEN_FOLDERS)},
        "process": {"dumpable": provider_keys.is_dumpable(), "uid": os.getuid() if hasattr(os, "getuid") else None},
        "keys_held": sorted(provider_keys.held_names()),
        "withheld_from_commands": withheld,
        "passed_to_commands": sorted(n for n in sandbox.pass_env if n in os.environ),
        "warnings": loaded.warnings,
    }


def covers(abi: int) -> list[str]:
    """What the kernel's Landlock ABI lets ljtui confine."""
    return [what for version, what in LANDLOCK_FEATURES if abi >= version]


def render(report: dict[str, Any]) -> list[str]:
    """The human report."""
    from ljtui.cli.doctor_model import context_window_text

    box = report["sandbox"]
    process = report["process"]
    label = box["backend"] if box["confined"] else "unsandboxed"
    model = report["model"]
    lines = [f"{PROG}: {report['repository']}", *([f"  {report['refused']}; below is what a project folder gets"]
                                                    if report.get("refused") else []), "",
             _row("model", f"{model['label']}: {model['problem']}" if model["problem"] else model["label"]),
             _row("context window", context_window_text(model.get("context_window"))),
             _row("sandbox", label), _row("  why", box["why"])]
    abi = box["landlock_abi"]
    lines.append(_row("  landlock", f"ABI {abi}: {', '.join(box['landlock_covers'])}" if abi else "not available"))
    lines.append(_row("  bubblewrap", box["bwrap"] or "not on PATH"))
    lines.append(_row("  commands", box["allows"]))
    if box["ignored_write_paths"]:
        lines.append(_row("  ignored", "agent.sandbox.write_paths (not absolute, or missing): "
                          + ", ".join(box["ignored_write_paths"])))
    if box["refused_write_paths"]:
        lines.append(_row("  left out", "agent.sandbox.write_paths commands may never write: "
                          + "; ".join(f"{r['entry']} {r['why']}" for r in box["refused_write_paths"])))
    lines.append(_row("  never", "whatever the config says, commands never write ljtui's own folders ("
                      + ", ".join(f["folder"] for f in box["never_writable"])
                      + "), your home folder as a whole, nor /"))
    if not box["confined"]:
        lines.append(_row("", "every command asks; session grants and allow-lists do not cover commands"))
    lines += layer_lines(report["layer"])
    dumpable = process["dumpable"]
    lines.append(_row("process", "non-dumpable: other processes cannot read ljtui's memory or environment"
                      if dumpable is False else "dumpable: processes of your user can read ljtui's environment"
                      if dumpable else "cannot tell whether other processes can read ljtui's memory"))
    if process["uid"] == 0:
        lines.append(_row("", "running as root: root commands can still read ljtui's memory; run ljtui as a "
                          "normal user"))
    held = report["keys_held"]
    lines.append(_row("keys", (f"{', '.join(held)}: held by ljtui, not in its environment"
                               if held else "none taken from the environment")
                      + "; commands never get a provider key"))
    withheld = report["withheld_from_commands"]
    lines.append(_row("credentials", f"not passed to commands: {', '.join(withheld)}" if withheld
                      else "none in the environment"))
    if report["passed_to_commands"]:
        lines.append(_row("", f"passed by agent.pass_env: {', '.join(report['passed_to_commands'])}"))
    lines += [f"warning: {w}" for w in report["warnings"]]
    return lines


def layer_lines(layer: dict[str, Any]) -> list[str]:
    """The layer's rows: layered or direct and why, and what a layered command sees of the machine."""
    if layer["mode"] != "layered":
        return [_row("layer", "direct: changes are written to your files directly"), _row("  why", layer["why"])]
    asks = ("commands in the layer run without a dialog (network, leaving the sandbox still ask)"
            if layer["ask_commands"] == "layered" else "every command asks (agent.ask_commands: always)")
    lines = [_row("layer", "layered: every write and every command's effect waits in a copy-on-write layer until "
                  "you apply it (`ljtui layer diff`)"), _row("  why", layer["why"]), _row("  asks", asks),
             _row("  hidden", f"{', '.join(layer['hidden'])} (the machine's sockets), and your home folder "
                  f"{layer['home'] or '(none)'} but:")]
    for row in layer["home_visible"]:
        lines.append(_row("", f"{row['path']} ({row['why']})"))
    for path in layer["read_paths"]:
        lines.append(_row("", f"{path} (agent.sandbox.read_paths)"))
    return lines


def _row(name: str, value: str) -> str:
    return f"{name:<{LABEL_WIDTH}}{value}"
