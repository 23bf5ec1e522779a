"""The ways the gates refuse what was asked, for every front end (the CLI, the TUI's ``/gates``, ``ljtui run``).

Each is reported as a refusal with its own one-line message, never as an
internal error: a gate id that names no gate (:class:`NoSuchGate`), a rework
with nothing left to send back, a malformed gate or run file, a staging tree
or a confirmation that cannot be used.
"""

from __future__ import annotations

from ljtui.core.gates.endings import GateRefused

MAX_KNOWN_IDS = 10
"""Gate ids named in a :class:`NoSuchGate` message (the rest are counted)."""


class NoSuchGate(GateRefused):
    """A gate id that names no gate: ``str(exc)`` says so and names the gates there are, without saying how to
    list them (each front end knows its own command: :meth:`hinted`).

    Attributes:
        gate_id: The id asked for.
        known: The ids of the repository's gates, or ``None`` when the gates folder could not be listed.
    """

    def __init__(self, gate_id: str, known: tuple[str, ...] | None) -> None:
        self.gate_id = gate_id
        self.known = known
        if known is None:
            text = f"there is no gate {gate_id!r}"
        elif not known:
            text = f"there is no gate {gate_id!r}: this repository has no gates yet (.agent/gates/)"
        else:
            shown = ", ".join(known[:MAX_KNOWN_IDS])
            more = f" and {len(known) - MAX_KNOWN_IDS} more" if len(known) > MAX_KNOWN_IDS else ""
            text = f"there is no gate {gate_id!r} (the gates here: {shown}{more})"
        super().__init__(text)

    def hinted(self, lister: str) -> str:
        """The message, and ``lister`` (the front end's own words, e.g. "`ljtui gates list` lists them") when
        there are gates to list."""
        return f"{self}; {lister}" if self.known else str(self)


def refusals() -> tuple[type[Exception], ...]:
    """The errors by which the gates refuse or cannot do what was asked."""
    from ljtui.core.gates.confirmations import ConfirmationError
    from ljtui.core.gates.records import GateInvalid
    from ljtui.core.gates.runs import RunFileError
    from ljtui.core.gates.workspace_files import WorkspaceError

    return GateRefused, GateInvalid, RunFileError, WorkspaceError, ConfirmationError


def refusal_message(exc: Exception) -> str:
    """The one sentence of a refusal: a gate field's problem without the field's name when that is the
    whole history (the user did not write it), else the error's own message."""
    from ljtui.core.gates.confirmations import ConfirmationError
    from ljtui.core.gates.records import GateFileError, GateInvalid

    if isinstance(exc, ConfirmationError):
        return exc.message
    if isinstance(exc, GateInvalid) and not isinstance(exc, GateFileError) and exc.field == "history":
        return exc.problem
    return str(exc)
