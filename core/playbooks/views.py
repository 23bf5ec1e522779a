"""What ``/playbook`` and ``ljtui playbook`` show: lines for a pane or a terminal, and JSON objects.

Both front ends use these, so the app and the command line say the same
thing. Every value shown came from a validated file: no control characters.
"""

from __future__ import annotations

from typing import Any, Sequence

from ljtui.core.playbooks.model import ACTIVE, DEPRECATED, DRAFT, STATUSES, Playbook
from ljtui.core.playbooks.search import SearchHit
from ljtui.core.playbooks.store import REPOSITORY, Library

STATUS_WIDTH = 11
"""Width of the status column of a list."""
MAX_PROVEN_SHOWN = 3
"""Playbooks named under "most proven" and "failing most" in the stats."""
PERCENT = 100
SHORT_TIME_CHARS = len("2026-01-01T09:30")
SOURCE_LABELS = {REPOSITORY: "repository", "user": "yours"}
"""How a library is named to the user."""
EMPTY_LIBRARY = ("No playbooks yet. The agent saves a draft with playbook_save after a run worth repeating; "
                 "`/playbook promote ID` makes one active.")


def record(playbook: Playbook) -> str:
    """``2 ok · 1 fail`` (or ``unused``)."""
    s = playbook.stats
    return f"{s.ok} ok · {s.fail} fail" if s.uses or s.ok or s.fail else "unused"


def short_time(stamp: str) -> str:
    """An ISO 8601 time to the minute, ``2026-01-01 09:30`` (left as it is when it is not that shape)."""
    return stamp[:SHORT_TIME_CHARS].replace("T", " ") if len(stamp) > SHORT_TIME_CHARS and stamp[10:11] == "T" \
        else stamp


def list_lines(library: Library) -> list[str]:
    """Two lines per playbook: status, id and record (and "yours" for the user's own); then the title, indented."""
    if not library.playbooks:
        return [EMPTY_LIBRARY]
    lines: list[str] = []
    for playbook in library.playbooks:
        yours = f" · {SOURCE_LABELS['user']}" if playbook.source != REPOSITORY else ""
        lines.append(f"{playbook.status:<{STATUS_WIDTH}}{playbook.id}  {record(playbook)}{yours}")
        lines.append(f"{'':<{STATUS_WIDTH}}{playbook.title}")
    return lines


def search_lines(hits: Sequence[SearchHit]) -> list[str]:
    """One line per hit, best first: score, status, id and title."""
    if not hits:
        return ["No playbook matches."]
    return [f"{hit.score:>7.2f}  {hit.playbook.status:<{STATUS_WIDTH}}{hit.playbook.id}  {hit.playbook.title}"
            for hit in hits]


def show_lines(playbook: Playbook, path: str) -> list[str]:
    """The whole playbook: its fields, its record, then its body as written."""
    s = playbook.stats
    last = f" · last used {s.last_used} ({s.last_outcome})" if s.last_used else ""
    lines = [
        f"{playbook.title}",
        f"status {playbook.status} · {SOURCE_LABELS.get(playbook.source, playbook.source)} · {path}",
        f"when to use: {playbook.when_to_use or '-'}",
        f"tags: {', '.join(playbook.tags) or '-'}",
        f"record: {s.uses} uses · {s.ok} ok · {s.fail} fail{last}",
        f"created {short_time(playbook.created)} · updated {short_time(playbook.updated)}"
        + (f" · session {playbook.source_session}" if playbook.source_session else ""),
    ]
    if playbook.status == ACTIVE:
        lines.append(f"offered as the skill playbook-{playbook.id}")
    body = playbook.body.strip("\n").splitlines()
    return [*lines, "", *body] if body else lines


def stats_lines(library: Library) -> list[str]:
    """Counts by status and library, the total record, and the most proven and most failing playbooks."""
    books = library.playbooks
    if not books:
        return [EMPTY_LIBRARY]
    by_status = {status: sum(1 for p in books if p.status == status) for status in STATUSES}
    in_repo = sum(1 for p in books if p.source == REPOSITORY)
    uses, ok, fail = (sum(getattr(p.stats, name) for p in books) for name in ("uses", "ok", "fail"))
    lines = [f"playbooks: {len(books)} ({by_status[ACTIVE]} active, {by_status[DRAFT]} draft, "
             f"{by_status[DEPRECATED]} deprecated) · {in_repo} in the repository, {len(books) - in_repo} yours",
             f"uses: {uses} · {ok} ok · {fail} fail"
             + (f" · {ok * PERCENT // (ok + fail)}% ok" if ok + fail else "")]
    proven = sorted((p for p in books if p.stats.ok), key=lambda p: (-p.stats.ok, p.stats.fail, p.id))
    failing = sorted((p for p in books if p.stats.fail), key=lambda p: (-p.stats.fail, p.stats.ok, p.id))
    if proven:
        lines.append("most proven: " + ", ".join(f"{p.id} ({record(p)})" for p in proven[:MAX_PROVEN_SHOWN]))
    if failing:
        lines.append("failing most: " + ", ".join(f"{p.id} ({record(p)})" for p in failing[:MAX_PROVEN_SHOWN]))
    return lines


def as_json(playbook: Playbook, score: float | None = None) -> dict[str, Any]:
    """``{id, title, status, stats, source, tags, when_to_use}``, and ``score`` for a search hit."""
    data: dict[str, Any] = {"id": playbook.id, "title": playbook.title, "status": playbook.status,
                            "stats": playbook.stats.as_dict(), "source": playbook.source, "tags": list(playbook.tags),
                            "when_to_use": playbook.when_to_use}
    if score is not None:
        data["score"] = score
    return data


def full_json(playbook: Playbook, path: str) -> dict[str, Any]:
    """Everything about one playbook: :func:`as_json` plus its times, path, sections and body."""
    return {**as_json(playbook), "scope": playbook.scope, "created": playbook.created, "updated": playbook.updated,
            "source_session": playbook.source_session, "path": path, "sop": list(playbook.sop_steps()),
            "sections": playbook.sections, "body": playbook.body}


def stats_json(library: Library) -> dict[str, Any]:
    """Counts by status, the total record, and every playbook's stats."""
    books = library.playbooks
    return {"playbooks": len(books), "by_status": {s: sum(1 for p in books if p.status == s) for s in STATUSES},
            "uses": sum(p.stats.uses for p in books), "ok": sum(p.stats.ok for p in books),
            "fail": sum(p.stats.fail for p in books), "each": [as_json(p) for p in books]}
