"""The ways the gates refuse what was asked, for every front end (the CLI, the TUI's ``/gates``, ``ljtui run``).

Each is reported as a refusal with its own one-line message, never as an
internal error: a rework with nothing left to send back, a malformed gate or
run file, a staging tree or a confirmation that cannot be used.
"""

from __future__ import annotations


def refusals() -> tuple[type[Exception], ...]:
    """The errors by which the gates refuse or cannot do what was asked."""
    from ljtui.core.gates.confirmations import ConfirmationError
    from ljtui.core.gates.records import GateInvalid
    from ljtui.core.gates.runs import RunFileError
    from ljtui.core.gates.service import GateRefused
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
