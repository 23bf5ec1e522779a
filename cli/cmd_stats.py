"""``ljtui stats``: how task-plan runs went, from the run log ``.agent/events.jsonl``.

Over the approved task-plan runs of the repository: how many there were,
the first-try success rate (finished runs with no replan and no failed
task, over finished runs), the mean replans per finished run, and the tool
hints most often followed by a failed task. A run that never finished
(ljtui stopped, or it is still going) is counted apart and left out of the
rates; with no finished run the rates are shown as ``-`` (``null`` in JSON).

The log is read as untrusted input: malformed lines are skipped and counted
(``ignored_lines``, and on stderr "N lines of events.jsonl were unreadable and
skipped"), lines of kinds this version does not know are skipped
(``other_lines``), and only its last part is read when it is very long
(``unread_bytes``). A repository that commits its own ``.agent/events.jsonl``
adds its runs to the figures; the ignored-lines count says how much of it
was not understood.

``--json`` prints one object: ``runs``, ``finished_runs``,
``unfinished_runs``, ``first_try_successes``, ``first_try_success_rate``,
``mean_replans_per_run``, ``failing_tool_hints`` (a list of ``{hint, uses,
failures}``), ``ignored_lines``, ``other_lines`` and ``unread_bytes``.

Exit status: 0 reported (perhaps no runs); 1 the log cannot be read (e.g.
``.agent`` is a symbolic link); 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ljtui.cli.output import LONE_SURROGATE, echo, json_text, silence_stdout
from ljtui.core.display import shown_line

if TYPE_CHECKING:
    from ljtui.core.runlog import RunLogRead
    from ljtui.core.stats import Stats

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
PROG = "ljtui stats"
LABEL_WIDTH = 24
"""Width of the label column of the human output."""
HINT_WIDTH = 20
"""Width of the hint column under the failing tool hints."""
PERCENT = 100
MAX_HINT_CHARS = 40
"""A longer hint is cut in the human output (the log is untrusted)."""
CUT_MARK = "…"
UNPRINTABLE = "\ufffd"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stats`` command."""
    parser = subparsers.add_parser(
        "stats", help="how task-plan runs went: first-try success, replans, failing tool hints",
        description="Figures over the approved task-plan runs logged in .agent/events.jsonl: runs, first-try "
                    "success rate (no replan, no failed task), mean replans per run and the tool hints most "
                    "often followed by failure. Unfinished runs are counted apart; malformed lines are skipped "
                    "and counted. A log committed to the repository counts too.")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: runs, first_try_success_rate, mean_replans_per_run, "
                             "failing_tool_hints [{hint, uses, failures}], unfinished_runs, ignored_lines, …")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                        help="repository to report on (default: the one holding the current directory)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Report on the repository's run log; see the module docstring for the exit status."""
    from ljtui.cli.main import repo_root_arg
    from ljtui.core.runlog import read_run_log
    from ljtui.core.stats import compute_stats

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_USAGE
    read = read_run_log(root)
    if read.problem is not None:
        echo(f"{PROG}: {read.problem}", sys.stderr)
        return EXIT_FAILED
    for reason in read.reasons:
        echo(f"{PROG}: ignored {reason}", sys.stderr)
    stats = compute_stats(read.events)
    skipped = unreadable_lines(stats, read)
    if skipped:
        echo(f"{PROG}: {skipped} line{'s' if skipped != 1 else ''} of events.jsonl "
             f"{'were' if skipped != 1 else 'was'} unreadable and skipped", sys.stderr)
    try:
        if args.json:
            print(json_text(as_json(stats, read), indent=1))  # a lone surrogate as its escape
        else:
            echo("\n".join(as_lines(stats, read)))
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    return EXIT_OK


def unreadable_lines(stats: Stats, read: RunLogRead) -> int:
    """Lines of the log that were skipped as malformed: by the reader, or by the figures."""
    return read.ignored + stats.unreadable


def as_json(stats: Stats, read: RunLogRead) -> dict[str, object]:
    """The ``--json`` object."""
    return {**stats.as_dict(), "ignored_lines": unreadable_lines(stats, read), "other_lines": read.other,
            "unread_bytes": read.unread_bytes}


def as_lines(stats: Stats, read: RunLogRead) -> list[str]:
    """The human report: a few aligned lines."""
    lines = [_row("runs", f"{stats.runs} approved ({stats.finished_runs} finished, "
                          f"{stats.unfinished_runs} unfinished)")]
    rate = stats.first_try_success_rate
    lines.append(_row("first-try success rate", "-" if rate is None else
                      f"{rate * PERCENT:.0f}% ({stats.first_try_successes} of {stats.finished_runs})"))
    mean = stats.mean_replans_per_run
    lines.append(_row("mean replans per run", "-" if mean is None else f"{mean:.2f}"))
    if stats.failing_tool_hints:
        lines.append("tool hints most often followed by failure:")
        lines.extend(f"  {hint_shown(h.hint):<{HINT_WIDTH}} {h.failures} of {h.uses} failed"
                     for h in stats.failing_tool_hints)
    else:
        lines.append(_row("failing tool hints", "none"))
    lines.append(_row("ignored lines", f"{unreadable_lines(stats, read)} malformed, {read.other} of other kinds"))
    if read.unread_bytes:
        lines.append(_row("not read", f"the first {read.unread_bytes} bytes of a long log"))
    return lines


def _row(label: str, value: str) -> str:
    return f"{label:<{LABEL_WIDTH}}{value}"


def hint_shown(text: str) -> str:
    """A tool hint from the log as printed: controls and invisible characters as visible escapes
    (:func:`~ljtui.core.display.shown_line`), a lone surrogate as U+FFFD, cut short."""
    flat = LONE_SURROGATE.sub(UNPRINTABLE, shown_line(text))
    return flat if len(flat) <= MAX_HINT_CHARS else flat[:MAX_HINT_CHARS - len(CUT_MARK)] + CUT_MARK
