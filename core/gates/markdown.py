"""A gate file's text (GATE-1): YAML front matter, ``## Checklist``, ``## History`` and the user's notes.

::

    ---
    id: api-change
    title: Change the public API
    level: 2
    confirmed_by_user: false
    factors: {change_surface: 0.6, chain_length: 0.5, cognitive_density: 0.4, …}
    stats: {runs: 1, passed: 1, failed: 0, reworks: 0}
    created: '2027-01-15T08:00:00.000Z'
    updated: '2027-01-15T09:00:00.000Z'
    ---

    Notes the user writes here (or under headings of their own) are kept.

    ## Checklist

    - [required] `tests` — Unit tests pass: `pytest -q`
    - [optional] `lint` — Lint is clean: `` ruff check `git ls-files '*.py'` ``

    ## History

    - `run-1a2b` pass at 2027-01-15T09:00:00.000Z
      - `tests` exit 0, duration_ms 5120, agent `chat`, hash `9f86…`, at 2027-…Z, command `pytest -q`, output `ok`

A checklist line is ``- [required|optional] `ID` — DESCRIPTION: `COMMAND```.
The command is a Markdown code span: its fence is one backtick longer than
the longest run of backticks inside it, padded with a space when it starts
or ends with one, so any one-line command reads back exactly and renders
as code. ``--`` or ``-`` may stand for the dash.

A history run is a list line (run id, outcome, time) with one indented
line per evidence; outputs and commands there are shortened
(:data:`~ljtui.core.gates.records.MAX_RECORD_CHARS`): the full evidence
lives with the run, the file keeps the record. The ``level`` written is
informative only: it is recomputed from the factors and stats on reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import yaml

from ljtui.core.gates.model import Evidence, Gate, HistoryEntry, PlaybookPrior, Stats, gate_risk
from ljtui.core.gates.records import (
    MAX_RUN_ID_CHARS,
    GateInvalid,
    check_bool,
    check_count,
    check_entry,
    check_factors,
    check_gate_id,
    check_item_id,
    check_items,
    check_line,
    check_stats,
    check_time,
    check_title,
    iso_time,
)
from ljtui.core.ids import is_valid_id
from ljtui.core.skill_files import SkillFileError, load_plain_yaml, split_front_matter

KNOWN_KEYS = ("id", "title", "level", "confirmed_by_user", "factors", "stats", "created", "updated", "playbook")
"""Front matter keys ljtui reads; others are kept as they are (``Gate.extra``)."""
CHECKLIST = "Checklist"
HISTORY = "History"
DASH = "—"
YAML_WIDTH = 1_000_000
"""Wide enough that the YAML writer never folds a title over two lines."""
_TICKS = re.compile(r"`+")
_HEADING = re.compile(r"^#{1,2}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^[-*+]\s+\[\s*(required|optional)\s*\]\s+(?:`([^`\s]*)`|([^`\s]+))\s+(?:—|–|--|-)\s+(.*)$",
                   re.IGNORECASE)
_RUN = re.compile(r"^[-*+]\s+(.*)$")
_EVIDENCE = re.compile(r"^\s+[-*+]\s+(.*)$")
_EVIDENCE_KEYS = ("exit", "duration_ms", "agent", "verifier", "hash", "at", "command", "output")


@dataclass(frozen=True)
class ParsedGate:
    """A gate read from its text, and what the reader noticed (e.g. a level that was recomputed)."""

    gate: Gate
    warnings: tuple[str, ...] = ()


def code_span(text: str) -> str:
    """``text`` as a Markdown code span that reads back exactly (see the module's docstring)."""
    longest = max((len(run) for run in _TICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == " " and text[-1:] == " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _unpad(content: str) -> str:
    if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
        return content[1:-1]
    return content


def render_gate(gate: Gate) -> str:
    """The file's text for ``gate`` (the level written is the one the formula gives)."""
    front: dict[str, Any] = {
        "id": gate.id, "title": gate.title, "level": gate_risk(gate).level,
        "confirmed_by_user": gate.confirmed_by_user,
        "factors": {name: getattr(gate.factors, name) for name in gate.factors.__dataclass_fields__},
        "stats": {name: getattr(gate.stats, name) for name in gate.stats.__dataclass_fields__},
        "created": iso_time(gate.created), "updated": iso_time(gate.updated),
        **({"playbook": {"id": gate.playbook.id, "ok": gate.playbook.ok, "fail": gate.playbook.fail}}
           if gate.playbook else {}),
        **{key: value for key, value in gate.extra.items() if key not in KNOWN_KEYS},
    }
    header = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=YAML_WIDTH)
    parts = [f"---\n{header}---\n"]
    if gate.notes.strip():
        parts.append(gate.notes.strip("\n") + "\n")
    parts.append(f"## {CHECKLIST}\n\n" + "".join(_item_line(item) + "\n" for item in gate.items))
    parts.append(f"## {HISTORY}\n" + ("\n" if gate.history else "") + "".join(map(_run_lines, gate.history)))
    return "\n".join(parts)


def _item_line(item: Any) -> str:
    kind = "required" if item.required else "optional"
    return f"- [{kind}] `{item.id}` {DASH} {item.description}: {code_span(item.command)}"


def _run_lines(entry: HistoryEntry) -> str:
    lines = [f"- {code_span(entry.run_id)} {entry.outcome} at {iso_time(entry.at)}"]
    for ev in entry.evidence:
        fields = [f"exit {'none' if ev.exit_code is None else ev.exit_code}", f"duration_ms {ev.duration_ms}"]
        for key, value in (("agent", ev.agent), ("verifier", ev.verifier), ("hash", ev.content_hash)):
            if value:
                fields.append(f"{key} {code_span(value)}")
        fields.append(f"at {iso_time(ev.at)}")
        for key, value in (("command", ev.command), ("output", ev.output)):
            if value:
                fields.append(f"{key} {code_span(value)}")
        lines.append(f"  - `{ev.item}` " + ", ".join(fields))
    return "".join(line + "\n" for line in lines)


def parse_gate(text: str, file_id: str) -> ParsedGate:
    """The gate in a file's ``text``; ``file_id`` is the file's name without ``.md``.

    Raises:
        GateInvalid: a field is missing or wrong (the error names it).
    """
    try:
        header, body = split_front_matter(text)
        data = load_plain_yaml(header)
    except SkillFileError as exc:
        problem = str(exc).replace("skill files", "gate files")
        raise GateInvalid("front matter", problem) from None
    if not isinstance(data, dict):
        raise GateInvalid("front matter", "is not a mapping of id, title, factors …")
    for key in ("id", "title", "factors"):
        if key not in data:
            raise GateInvalid(key, "is missing")
    gate_id = check_gate_id(data["id"])
    if gate_id != file_id:
        raise GateInvalid("id", f"is {gate_id!r} but the file is named {file_id}.md; they must be the same")
    factors = check_factors(data["factors"])
    stats = check_stats(data["stats"]) if "stats" in data else Stats()
    notes, checklist, history = _sections(body, header.count("\n") + 2)
    gate = Gate(gate_id, check_title(data["title"]), _checklist(checklist), factors, 0,
                check_bool(data.get("confirmed_by_user", False), "confirmed_by_user"), stats, _history(history),
                _time(data, "created"), _time(data, "updated"), notes,
                {str(k): v for k, v in data.items() if k not in KNOWN_KEYS}, _playbook(data.get("playbook")))
    gate = replace(gate, level=gate_risk(gate).level)
    return ParsedGate(gate, _level_warnings(data, gate))


def _playbook(value: Any) -> PlaybookPrior | None:
    """The ``playbook`` front matter: ``{id, ok, fail}``, the record of the family's playbook, or nothing."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"id", "ok", "fail"}:
        raise GateInvalid("playbook", "must be a mapping of exactly id, ok and fail")
    if not is_valid_id(value["id"]):
        raise GateInvalid("playbook.id", f"{str(value['id'])[:40]!r} is not a playbook id")
    return PlaybookPrior(value["id"], check_count(value["ok"], "playbook.ok"), check_count(value["fail"], "playbook.fail"))


def _time(data: dict[str, Any], key: str) -> float:
    return check_time(data[key], key) if data.get(key) is not None else 0.0


def _level_warnings(data: dict[str, Any], gate: Gate) -> tuple[str, ...]:
    computed = gate_risk(gate)
    if "level" not in data:
        return (f"level: missing; the risk formula gives L{computed.level} (R = {computed.r:.2f})",)
    written = check_count(data["level"], "level")
    if written > 3:
        raise GateInvalid("level", f"is {written}; levels go from 0 to 3")
    if written != computed.level:
        return (f"level: the file says L{written} but the risk formula gives L{computed.level} "
                f"(R = {computed.r:.2f}); L{computed.level} is used",)
    return ()


def _sections(body: str, offset: int) -> tuple[str, list[tuple[int, str]], list[tuple[int, str]]]:
    """The body's notes, and the lines of its checklist and history sections numbered as in the file.

    ``offset`` is the number of lines before the body (the front matter and its fences).
    """
    notes: list[str] = []
    found: dict[str, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    for number, line in enumerate(body.split("\n"), start=offset + 1):
        line = line.removesuffix("\r")
        heading = _HEADING.match(line)
        if heading:
            name = heading.group(1).strip().casefold()
            section = next((s for s in (CHECKLIST, HISTORY) if s.casefold() == name), None)
            if section is not None:
                if section in found:
                    raise GateInvalid(section.casefold(), f"the file has two ## {section} sections")
                current = found[section] = []
                continue
            current = None
        if current is None:
            notes.append(line)
        elif line.strip():
            current.append((number, line))
    if CHECKLIST not in found:
        raise GateInvalid("checklist", f"the file has no ## {CHECKLIST} section")
    return "\n".join(notes).strip("\n"), found[CHECKLIST], found.get(HISTORY, [])


def _checklist(lines: list[tuple[int, str]]) -> tuple[Any, ...]:
    raw = []
    for number, line in lines:
        field = f"checklist line {number}"
        match = _ITEM.match(line)
        if not match:
            raise GateInvalid(field, f"is not `- [required|optional] `ID` {DASH} description: `command``")
        description, command = _split_command(match.group(4), field)
        raw.append({"id": match.group(2) if match.group(2) is not None else match.group(3),
                    "description": description, "command": command,
                    "required": match.group(1).lower() == "required"})
    return check_items(raw)


def _split_command(rest: str, field: str) -> tuple[str, str]:
    """``DESCRIPTION: `COMMAND``` split at the line's last code span."""
    rest = rest.rstrip()
    runs = list(_TICKS.finditer(rest))
    if not runs or runs[-1].end() != len(rest):
        raise GateInvalid(field, "does not end with the command in backticks")
    size = len(runs[-1].group())
    fences = [run for run in runs if len(run.group()) == size]
    if len(fences) < 2:
        raise GateInvalid(field, "does not end with the command in backticks")
    opening, closing = fences[-2], fences[-1]
    description = rest[:opening.start()].rstrip()
    if not description.endswith(":"):
        raise GateInvalid(field, "needs a colon between the description and the command")
    return description[:-1], _unpad(rest[opening.end():closing.start()])


def _tokens(text: str, field: str) -> list[tuple[bool, str]]:
    """``text`` as code spans ``(True, content)`` and bare words ``(False, word)``; commas separate too."""
    out: list[tuple[bool, str]] = []
    i = 0
    while i < len(text):
        if text[i] in " \t,":
            i += 1
        elif text[i] == "`":
            size = len(_TICKS.match(text, i).group())  # type: ignore[union-attr]
            close = next((m for m in _TICKS.finditer(text, i + size) if len(m.group()) == size), None)
            if close is None:
                raise GateInvalid(field, "has a `code` span that is not closed")
            out.append((True, _unpad(text[i + size:close.start()])))
            i = close.end()
        else:
            end = re.compile(r"[ \t,`]|$").search(text, i).start()  # type: ignore[union-attr]
            out.append((False, text[i:end]))
            i = end
    return out


def _history(lines: list[tuple[int, str]]) -> tuple[HistoryEntry, ...]:
    runs: list[HistoryEntry] = []
    for number, line in lines:
        field = f"history line {number}"
        evidence = _EVIDENCE.match(line)
        if evidence:
            if not runs:
                raise GateInvalid(field, "is evidence before any run")
            runs[-1] = replace(runs[-1], evidence=(*runs[-1].evidence, _evidence(evidence.group(1), field)))
            continue
        run = _RUN.match(line)
        tokens = _tokens(run.group(1), field) if run else []
        if len(tokens) != 4 or not tokens[0][0] or tokens[2] != (False, "at"):
            raise GateInvalid(field, "is not `- `RUN-ID` OUTCOME at TIME` or an indented evidence line")
        run_id = check_line(tokens[0][1], f"{field} run id", MAX_RUN_ID_CHARS)
        outcome: Any = tokens[1][1]  # checked with the whole entry below
        runs.append(HistoryEntry(run_id, outcome, check_time(tokens[3][1], f"{field} time")))
    return tuple(check_entry(entry) for entry in runs)


def _evidence(text: str, field: str) -> Evidence:
    tokens = _tokens(text, field)
    if not tokens or not tokens[0][0]:
        raise GateInvalid(field, "does not start with the item id in backticks")
    item = check_item_id(tokens[0][1], f"{field} item")
    values: dict[str, str] = {}
    rest = tokens[1:]
    if len(rest) % 2:
        raise GateInvalid(field, "has a field without a value")
    for (_, key), (_, value) in zip(rest[::2], rest[1::2]):
        if key not in _EVIDENCE_KEYS or key in values:
            raise GateInvalid(field, f"has an unknown or repeated field {key[:MAX_RUN_ID_CHARS]!r}")
        values[key] = value
    for key in ("exit", "duration_ms", "at"):
        if key not in values:
            raise GateInvalid(f"{field} {key}", "is missing")
    return Evidence(item, values.get("command", ""), _exit(values["exit"], field), _int(values["duration_ms"], field),
                    values.get("output", ""), values.get("hash", ""), values.get("agent", ""),
                    values.get("verifier", ""), check_time(values["at"], f"{field} at"))


def _int(text: str, field: str) -> int:
    if not re.fullmatch(r"-?[0-9]{1,13}", text):
        raise GateInvalid(f"{field} duration_ms", f"{text[:20]!r} is not a whole number")
    return int(text)


def _exit(text: str, field: str) -> int | None:
    if text == "none":
        return None
    if not re.fullmatch(r"-?[0-9]{1,13}", text):
        raise GateInvalid(f"{field} exit", f"{text[:20]!r} is not an exit code or none")
    return int(text)
