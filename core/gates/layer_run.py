"""A gated run held in the session's copy-on-write layer: no staging tree, no second path.

Where the session is layered, a run at a level that blocks delivery does
not make a staging copy: the agent's writes and commands already land in
the layer, which every process of the session sees at the repository's own
absolute path. The gate's checks and its verifier therefore run against the
agent's change where it will live, so a package installed in editable mode
imports the changed sources and not the user's tree.

* Evidence is bound to :func:`layer_hash`, a hash of what the layer would
  deliver: every entry the review shows (ignored caches a check writes,
  such as ``__pycache__``, do not count, or every check would make the
  previous one stale).
* Delivery is the layer's review and apply; while the run blocks,
  :func:`layer_blocker` is the refusal every apply of the layer meets (the
  Diff pane's, ``ljtui layer apply``'s), so no door lets the unchecked
  change reach the user's files.

Every function does disk work: call it from a thread.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from ljtui.core.layer.scan import LayerChange

if TYPE_CHECKING:
    from ljtui.core.gates.runs import GateRun
    from ljtui.core.gates.status import Blockers
    from ljtui.core.gates.view import GateView
    from ljtui.core.layer.service import Layer


class HeldRun(Protocol):
    """What :func:`layer_blocker` reads of the gate service."""

    run: Any

    def blockers_now(self) -> Blockers: ...

    def view(self, gate_id: str | None = None, *, with_staged_files: bool = True) -> GateView | None: ...

HASH_PREFIX = "layer:"
"""Marks a content hash taken of the layer (a staging tree's hash never has it)."""


def layer_hash(change: LayerChange) -> str:
    """A hash of what ``change`` would deliver: each reviewed entry's path, kind, origin of a move, and the bytes,
    mode and kind of what the layer has there; and what the layer holds that is never delivered."""
    digest = hashlib.sha256()
    for entry in sorted(change.reviewed(), key=lambda e: e.path):
        after = entry.after
        head = [entry.path, entry.kind, entry.moved_from, after.exists, after.mode, after.link]
        digest.update(json.dumps(head, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(after.data or b"").digest())
    for path, _why in sorted(change.held):
        digest.update(b"held\0" + path.encode("utf-8", "surrogateescape") + b"\0")
    return HASH_PREFIX + digest.hexdigest()[:32]


def content_hash(layer: Layer) -> str:
    """The hash of what ``layer`` would deliver now (read without waiting for a command that holds it)."""
    return layer_hash(layer.peek())


def held_paths(layer: Layer) -> tuple[str, ...]:
    """The paths the layer would deliver now, sorted (what the Gates pane lists as the run's change)."""
    return tuple(sorted({p for e in layer.peek().reviewed() for p in e.paths}))


def waits(run: GateRun | None) -> bool:
    """Whether ``run`` is an open run held in the layer whose delivery the gate may still refuse."""
    return (run is not None and not run.delivered and run.in_layer and run.staged and run.outcome != "exempt"
            and run.breaker != "deliver")


def layer_blocker(service: HeldRun) -> str | None:
    """Why the layer's change may not reach the user's files now (``None``: it may): an open run held in the layer
    whose evidence is missing, failed or stale; or the guard failed, which only the gate's delivery can pass (it
    asks the user)."""
    from ljtui.core.gates.requests import refusal_text

    run = service.run
    if not waits(run):
        return None
    try:
        found = service.blockers_now()
        if not found:
            return None
        view = service.view(run.gate_id, with_staged_files=False)
    except Exception as exc:  # GATE-9: the guard's own failure never lets the change through unasked
        return (f"Gate {run.gate_id}'s guard failed ({type(exc).__name__}: {exc}); the layer's change goes to your "
                "files only through the gate's delivery (/gates deliver), which asks you.")
    return refusal_text(view) if view is not None else f"Gate {run.gate_id} has not passed."


def open_layer_run(root: Path, env: Mapping[str, str] | None) -> GateRun | None:
    """The newest open run this user started at ``root`` that is held in the layer (what ``ljtui layer apply``
    must ask of the gate before it writes), or ``None``."""
    from ljtui.core.gates.runs import list_runs

    runs, _problems = list_runs(root, env)
    return next((r for r in runs if not r.delivered and r.in_layer), None)


def blocker_at(root: Path, layer: Layer, env: Mapping[str, str] | None = None) -> str | None:
    """Why the layer's change may not reach the user's files now, read from the repository's run files (what a
    command without a session asks, ``ljtui layer apply``): an open run held in the layer whose evidence is
    missing, failed or stale (``None``: nothing holds it back)."""
    from ljtui.core.gates.status import blockers
    from ljtui.core.gates.store import GateStore

    run = open_layer_run(root, env)
    if run is None or not waits(run):
        return None
    where = f"gate {run.gate_id}'s run {run.run_id} holds this layer"
    try:
        gate = GateStore(root).load(run.gate_id)
        found = blockers(gate, run, content_hash(layer))
    except Exception as exc:  # GATE-9: a guard that cannot tell never lets the change through
        return (f"{where}, and its guard failed ({type(exc).__name__}: {exc}); `ljtui gates deliver "
                f"{run.gate_id}` asks you whether to deliver anyway, `ljtui gates discard {run.gate_id}` ends the "
                "run")
    if not found:
        return None
    return (f"{where} and has not passed: {'; '.join(found.lines(gate))}. `ljtui gates check {run.gate_id}` runs "
            f"its checks in the layer, `ljtui gates deliver {run.gate_id}` delivers once they pass, `ljtui gates "
            f"discard {run.gate_id}` ends the run")
