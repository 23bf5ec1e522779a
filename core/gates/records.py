"""Checking a gate's fields as untrusted input (GATE-1), wherever they come from.

A gate file is committed with the repository and a definition is proposed
by the model, so every field is checked the same way before ljtui keeps or
runs anything: types, the 0–1 range of the three scores, booleans that are
booleans, short unique item ids, single-line commands and texts with no
control characters (a command shown in a confirmation must be the command
that runs), counts that add up, and bounded sizes.

A problem is a :class:`GateInvalid` naming the field; the store adds the
file (:class:`GateFileError`).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, is_dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from ljtui.core.gates.model import CheckItem, Evidence, Factors, HistoryEntry, Stats
from ljtui.core.ids import ID_PATTERN, is_valid_id

MAX_ITEMS = 20
"""The most check items one gate may have."""
MAX_ITEM_ID_CHARS = 32
"""The longest check item id (``tests``, ``lint``, ``api-contract``)."""
MAX_TITLE_CHARS = 200
MAX_DESCRIPTION_CHARS = 500
MAX_COMMAND_CHARS = 4000
"""The longest check command (one line; a longer check belongs in a script)."""
MAX_COUNT = 10**12
"""The largest count, duration or exit code magnitude believed."""
MAX_RUN_ID_CHARS = 80
MAX_RECORD_CHARS = 160
"""A history line keeps at most this much of an evidence's output, command or agent."""
MAX_TIME = 253_402_300_799.0
"""The last second of year 9999: a later time is not a time."""
SCORES = ("change_surface", "chain_length", "cognitive_density")
FLAGS = ("objectively_verifiable", "irreversible")
STAT_FIELDS = ("runs", "passed", "failed", "reworks")
OUTCOMES = ("pass", "fail", "exempt", "rework")
CUT_MARK = "…"
_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What a one-line field may not hold: control characters (tab aside), line and paragraph
separators, bidirectional overrides (a command must read as it runs) and lone surrogates."""
_UNSAFE_NAMES = {"\x00": "a NUL byte", "\n": "a line break", "\r": "a line break"}


class GateInvalid(ValueError):
    """A field of a gate is not acceptable.

    Attributes:
        field: Where, e.g. ``factors.chain_length`` or ``checklist.tests.command``.
        problem: What is wrong, as a phrase.
    """

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class GateFileError(GateInvalid):
    """A gate file that cannot be used: unreadable, malformed, or in an unsafe place.

    Attributes:
        path: The file (or the gates folder) on disk.
        field: The field at fault (``file`` and ``folder`` for the file and folder themselves).
        problem: What is wrong with it.
        message: One sentence naming the file and the field.
    """

    def __init__(self, path: Path, field: str, problem: str) -> None:
        super().__init__(field, problem)
        self.path = path
        self.message = f"{shown_path(path)}: {field}: {problem}"
        self.args = (self.message,)

    def __str__(self) -> str:
        return self.message


class GateNotFound(GateFileError):
    """There is no gate file with that id."""


def shown_path(path: Path) -> str:
    """``path`` as the user knows it: from ``.agent`` on when it is inside one."""
    parts = path.parts
    if ".agent" in parts:
        return "/".join(parts[parts.index(".agent"):])
    return str(path)


def kind(value: object) -> str:
    """A value's type as a user reads it."""
    if value is None:
        return "nothing"
    return {bool: "a boolean", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def plain(value: Any) -> Any:
    """``value`` as plain data: a dataclass (``CheckItem``, ``Factors`` …) becomes a mapping."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return value


def check_line(value: object, field: str, limit: int, *, collapse: bool = True) -> str:
    """One line of text: no control characters, not empty, at most ``limit`` characters.

    ``collapse`` joins runs of blanks into one space; otherwise only the ends are stripped.
    """
    if not isinstance(value, str):
        raise GateInvalid(field, f"must be text, not {kind(value)}")
    bad = _UNSAFE.search(value)
    if bad:
        what = _UNSAFE_NAMES.get(bad.group(), f"the character U+{ord(bad.group()):04X}")
        raise GateInvalid(field, f"contains {what}; it must be one line of plain text")
    text = " ".join(value.split()) if collapse else value.strip()
    if not text:
        raise GateInvalid(field, "is empty")
    if len(text) > limit:
        raise GateInvalid(field, f"is {len(text):,} characters; at most {limit:,} are allowed")
    return text


def check_title(value: object) -> str:
    """A gate's title (any script, one line)."""
    return check_line(value, "title", MAX_TITLE_CHARS)


def check_gate_id(value: object, field: str = "id") -> str:
    """A gate id as built by :func:`ljtui.core.ids.title_id` (a safe file name)."""
    if not is_valid_id(value):
        raise GateInvalid(field, f"{_quoted(value)} is not a gate id (lowercase ASCII letters, digits and "
                                 f"single hyphens)")
    return str(value)


def check_item_id(value: object, field: str) -> str:
    """A check item id: short kebab-case (``tests``, ``lint``)."""
    if not (isinstance(value, str) and len(value) <= MAX_ITEM_ID_CHARS and ID_PATTERN.fullmatch(value)):
        raise GateInvalid(field, f"{_quoted(value)} is not an item id (lowercase ASCII letters, digits and "
                                 f"single hyphens, at most {MAX_ITEM_ID_CHARS} characters)")
    return value


def check_bool(value: object, field: str) -> bool:
    """``true`` or ``false``, nothing that merely looks like one."""
    if not isinstance(value, bool):
        raise GateInvalid(field, f"must be true or false, not {kind(value)}")
    return value


def check_score(value: object, field: str) -> float:
    """A number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GateInvalid(field, f"must be a number from 0 to 1, not {kind(value)}")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise GateInvalid(field, f"is {value!r}; it must be from 0 to 1")
    return float(value)


def check_count(value: object, field: str, *, low: int = 0) -> int:
    """A whole number from ``low`` to :data:`MAX_COUNT`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise GateInvalid(field, f"must be a whole number, not {kind(value)}")
    if not low <= value <= MAX_COUNT:
        raise GateInvalid(field, f"is {value}; it must be from {low} to {MAX_COUNT:,}")
    return value


def check_mapping(value: object, field: str, keys: Iterable[str]) -> dict[str, Any]:
    """A mapping with exactly ``keys`` (each missing or unknown key is named)."""
    value = plain(value)
    if not isinstance(value, dict):
        raise GateInvalid(field, f"must be a mapping, not {kind(value)}")
    wanted = tuple(keys)
    missing = [k for k in wanted if k not in value]
    if missing:
        raise GateInvalid(f"{field}.{missing[0]}", "is missing")
    unknown = sorted(str(k) for k in value if k not in wanted)
    if unknown:
        raise GateInvalid(f"{field}.{unknown[0][:MAX_ITEM_ID_CHARS]}", f"is not a field of {field}")
    return value


def check_factors(value: object) -> Factors:
    """The five factors: three scores from 0 to 1 and two booleans, all present."""
    data = check_mapping(value, "factors", SCORES + FLAGS)
    scores = [check_score(data[name], f"factors.{name}") for name in SCORES]
    flags = [check_bool(data[name], f"factors.{name}") for name in FLAGS]
    return Factors(*scores, *flags)


def check_stats(value: object) -> Stats:
    """The run record: counts that add up (runs = passed + failed; a rework sends back a pass)."""
    data = check_mapping(value, "stats", STAT_FIELDS)
    runs, passed, failed, reworks = (check_count(data[name], f"stats.{name}") for name in STAT_FIELDS)
    if passed + failed != runs:
        raise GateInvalid("stats.runs", f"is {runs}, but passed ({passed}) and failed ({failed}) add up to "
                                        f"{passed + failed}")
    if reworks > passed:
        raise GateInvalid("stats.reworks", f"is {reworks}, more than the {passed} passed runs it could send back")
    return Stats(runs, passed, failed, reworks)


def check_item(value: object, number: int) -> CheckItem:
    """One check item ``{id, description, command, required}``; ``number`` counts from 1."""
    data = plain(value)
    if not isinstance(data, dict):
        raise GateInvalid(f"checklist item {number}", f"must be a mapping, not {kind(data)}")
    item_id = check_item_id(data.get("id"), f"checklist item {number} id")
    where = f"checklist.{item_id}"
    data = check_mapping({"required": True, **data}, where, ("id", "description", "command", "required"))
    return CheckItem(item_id,
                     check_line(data["description"], f"{where}.description", MAX_DESCRIPTION_CHARS),
                     check_line(data["command"], f"{where}.command", MAX_COMMAND_CHARS, collapse=False),
                     check_bool(data["required"], f"{where}.required"))


def check_items(value: object) -> tuple[CheckItem, ...]:
    """The checklist: one to :data:`MAX_ITEMS` items with unique ids."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise GateInvalid("checklist", f"must be a list of items, not {kind(value)}")
    raw = list(value)
    if not raw:
        raise GateInvalid("checklist", "has no items; a gate must check at least one thing")
    if len(raw) > MAX_ITEMS:
        raise GateInvalid("checklist", f"has {len(raw)} items; at most {MAX_ITEMS} are allowed")
    items = tuple(check_item(entry, number) for number, entry in enumerate(raw, start=1))
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise GateInvalid(f"checklist.{item.id}", "the item id appears twice; ids must be unique")
        seen.add(item.id)
    return items


def check_time(value: object, field: str) -> float:
    """A moment: an ISO 8601 time (UTC when no zone is given) or seconds since the epoch."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise GateInvalid(field, f"{_quoted(value)} is not an ISO 8601 time") from None
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        try:
            value = moment.timestamp()
        except (OverflowError, OSError, ValueError):
            raise GateInvalid(field, "is out of range") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GateInvalid(field, f"must be a time, not {kind(value)}")
    if not math.isfinite(value) or not 0 <= value <= MAX_TIME:
        raise GateInvalid(field, "is out of range")
    return float(value)


def iso_time(seconds: float) -> str:
    """``seconds`` since the epoch as ISO 8601 UTC to the millisecond (what a gate file keeps)."""
    stamp = datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def short(value: object) -> str:
    """A record value as a gate file keeps it: one line, control characters gone, cut to :data:`MAX_RECORD_CHARS`."""
    text = " ".join(_UNSAFE.sub(" ", str(value)).split())
    return text if len(text) <= MAX_RECORD_CHARS else text[:MAX_RECORD_CHARS - len(CUT_MARK)] + CUT_MARK


def check_evidence(value: Evidence, field: str) -> Evidence:
    """Evidence as a history line keeps it (texts shortened, numbers checked)."""
    item = check_item_id(value.item, f"{field}.item")
    code = value.exit_code
    if code is not None:
        code = check_count(code, f"{field}.{item}.exit", low=-MAX_COUNT)
    return Evidence(item, short(value.command), code, check_count(value.duration_ms, f"{field}.{item}.duration_ms"),
                    short(value.output), short(value.content_hash), short(value.agent), short(value.verifier),
                    check_time(value.at, f"{field}.{item}.at"))


def check_entry(value: HistoryEntry, field: str = "history") -> HistoryEntry:
    """A finished run as a gate file keeps it."""
    run_id = check_line(value.run_id, f"{field}.run_id", MAX_RUN_ID_CHARS)
    if value.outcome not in OUTCOMES:
        raise GateInvalid(f"{field}.{run_id}.outcome", f"{_quoted(value.outcome)} is not one of "
                                                       f"{', '.join(OUTCOMES)}")
    evidence = tuple(check_evidence(e, f"{field}.{run_id}") for e in value.evidence)
    return HistoryEntry(run_id, value.outcome, check_time(value.at, f"{field}.{run_id}.at"), evidence)


def _quoted(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + CUT_MARK
