"""The command line's side of the Approver port: a prompt on a terminal, a policy otherwise.

``--yes`` answers every question with its first non-safe choice, except
offers of something the run does not need (keeping a draft playbook), the
runaway guard's question (an agent repeating one call) and keeping git
settings a process changed: those are asked on a terminal and declined
otherwise, so ``--yes`` never leaves new files in the repository that nobody
asked for, lets a looping agent go on, or keeps a hook nobody read. A
question whose lines are a report (a plan, git settings put back) shows
them even when nobody can answer. Without
it, a terminal gets the question and a prompt (on stderr when that is the
terminal, so ``--json`` output stays clean, else on stdout); with no
terminal the safe answer is taken and the command says how to proceed.
Questions and their lines are printed with their controls visible
(:func:`ljtui.cli.output.visible`): a command is shown as it will run.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from ljtui.cli.output import visible
from ljtui.core.approval import AllowAll, ApprovalRequest, Decision

NOT_BY_YES = frozenset({"playbook_offer", "runaway", "git_settings"})
"""Request kinds ``--yes`` does not accept: extras that are not steps of the run, the runaway guard, and keeping
git settings a process changed."""
SHOWN_UNASKED = frozenset({"git_settings"})
"""Request kinds whose lines are printed even when nobody can answer (what is put back is reported)."""
KIND_HINTS = {"git_settings": "to keep such a setting, make it yourself (or answer in the app)"}
"""How to proceed after a question of these kinds nobody could answer (``--yes`` does not answer them)."""
COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
RESET = "\x1b[0m"


class CliApprover:
    """Asks on the terminal, or follows the ``--yes`` / deny-by-default policy."""

    def __init__(self, prog: str, *, yes: bool, interactive: bool | None = None, out: TextIO | None = None,
                 inp: TextIO | None = None, hint: str = "pass --yes to confirm without asking",
                 hints: dict[str, str] | None = None) -> None:
        """
        Args:
            prog: the command, for messages (``ljtui apply``).
            yes: answer every question with its first non-safe choice.
            interactive: prompt (default: when stdin and stderr are terminals).
            out: where questions are written (default stderr).
            inp: where answers are read (default stdin).
            hint: how to proceed, said after a question nobody could answer.
            hints: a different ``hint`` for some kinds of request (e.g. ``task_plan``).
        """
        self.hint = hint
        self.hints = {**KIND_HINTS, **(hints or {})}
        self.prog = prog
        self.yes = yes
        self.inp = inp or sys.stdin
        terminal = next((s for s in (sys.stderr, sys.stdout) if s.isatty()), None)
        self.out = out or terminal or sys.stderr
        self.interactive = (self.inp.isatty() and terminal is not None) if interactive is None else interactive

    async def decide(self, request: ApprovalRequest) -> Decision:
        if self.yes and request.kind not in NOT_BY_YES:
            return await AllowAll().decide(request)
        if not self.interactive and request.kind in NOT_BY_YES and request.kind not in SHOWN_UNASKED:
            return Decision(request.safe)
        if not self.interactive:
            title = _title(request)
            if request.tasks is not None or request.kind in SHOWN_UNASKED:  # shown even when nobody can answer
                print(title, file=self.out)
                for line in request.lines:
                    print(f"  {_line(line)}", file=self.out)
            safe = request.choice(request.safe)
            print(f"{self.prog}: {title} Not a terminal, so the answer is "
                  f"'{safe.label if safe else request.safe}'; {self.hints.get(request.kind, self.hint)}.", file=self.out)
            return Decision(request.safe)
        return await asyncio.to_thread(self._prompt, request)

    def _prompt(self, request: ApprovalRequest) -> Decision:
        colour = self.out.isatty()
        title = _title(request)
        for line in map(_line, request.lines):
            start = COLOURS.get(line[:1], "") if colour and not line.startswith(("+++", "---")) else ""
            print(f"{start}{line}{RESET if start else ''}", file=self.out)
        text = None
        if request.text is not None:
            self.out.write(f"{title} [{_line(request.text)}]: ")
            self.out.flush()
            text = self.inp.readline().strip() or request.text
        keys = {c.key if len(c.key) == 1 else c.id[:1]: c for c in request.choices}
        if {c.id for c in request.choices} == {"yes", "no"} and request.safe == "no":
            shown = "y/N"
        else:
            shown = " / ".join(f"{key}={c.label}" for key, c in keys.items()) + f"; default: {request.safe}"
        self.out.write(f"{title} [{shown}] ")
        self.out.flush()
        answer = self.inp.readline().strip().lower()
        chosen = keys.get(answer[:1]) if answer else None
        if chosen is None and answer in ("yes", "y"):
            chosen = request.choice("yes")
        return Decision(chosen.id if chosen else request.safe, text)


def _title(request: ApprovalRequest) -> str:
    """The question on one line, as it may be printed (it may name a path or a gate)."""
    return visible(request.title, exact=True).replace("\n", "\\n")


def _line(line: str) -> str:
    """A line of a question as it may be printed: a command or a diff's line, every control and invisible
    character visible (ljtui's own colours go around it)."""
    return visible(line, exact=True)
