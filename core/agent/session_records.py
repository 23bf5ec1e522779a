"""The records of a session log: their shapes, how they are written, and their strict reader.

A session log is one JSON object per line. It lives in the repository
(``.agent/sessions/<id>.jsonl``), so when it is read back it is untrusted
input: :func:`parse_record` accepts exactly the shapes :func:`encode_record`
writes — known kinds, no unknown keys, every field's type, bounded sizes,
message blocks exactly as in :mod:`ljtui.core.providers.base` — and returns a
:class:`Malformed` value naming the problem for anything else.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Union

from ljtui.core.events import Usage
from ljtui.core.providers.base import Block, ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock

LOG_VERSION = 1
"""Version written in every header; other versions are not read."""
MAX_RECORD_BYTES = 16 * 1024 * 1024
"""A line longer than this is skipped unread (the largest tool input is about 1 MB of text)."""
MAX_BLOCKS = 1024
"""Blocks in one message."""
MAX_TOOL_ID_CHARS = 256
MAX_TOOL_NAME_CHARS = 256
MAX_ORIGIN_CHARS = 4096
MAX_REPO_CHARS = 4096
MAX_VERSION_CHARS = 64
MAX_INPUT_DEPTH = 64
"""Nesting of a tool call's input (objects and arrays)."""
MAX_TOKENS = 10**12
"""Largest token count one usage record may carry."""
MAX_COST_USD = 10.0**9
MAX_EPOCH = 10.0**11
"""Latest start time a header may carry (seconds since the epoch)."""
MAX_COUNT = 10**9
"""Largest message count a summary or rewind record may name."""
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
"""Session ids: short and safe inside a file name."""
_SURROGATE = re.compile("[\ud800-\udfff]")
"""Lone surrogates: valid in a Python string, unsendable to any provider."""

HEADER, MESSAGE, USAGE, SUMMARY, PLAN, REWIND, CLEARED = (
    "session", "message", "usage", "summary", "plan", "rewind", "cleared")
NOTICE = "notice"
MARK = "mark"
KINDS = (HEADER, MESSAGE, USAGE, SUMMARY, PLAN, REWIND, CLEARED, NOTICE, MARK)
MAX_MARK_GROUPS = 1000
"""Journal groups one mark may name (the journal keeps far fewer)."""
GROUP_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A journal group id, as the transaction names it."""
NOTICE_LEVELS = ("info", "warning", "error")
MAX_NOTICE_CHARS = 16_000
"""Characters of one notice kept in the log (a longer one is cut, ending in ``…``)."""
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
ROLE_BLOCKS = {"user": ("text", "tool_result"), "assistant": ("text", "tool_use")}
"""Block types each role may carry (the providers refuse anything else)."""


@dataclass(frozen=True)
class Header:
    """The first line of every log: who, when, where, and which ljtui wrote it."""

    id: str
    started: float
    repo: str
    ljtui: str
    resumed_from: str | None = None
    """The session this one continues (a copy made when resuming someone else's session)."""


@dataclass(frozen=True)
class MessageAdded:
    """A message was appended to the conversation history."""

    message: Message


@dataclass(frozen=True)
class UsageAdded:
    """Token use (and cost, when priced) of one model call, or a carried-over total."""

    usage: Usage
    cost_usd: float | None = None


@dataclass(frozen=True)
class Summarised:
    """Compression replaced the history: ``text`` summarises it and the last ``kept`` messages stay."""

    text: str
    kept: int


@dataclass(frozen=True)
class PlanOpened:
    """A plan was put under review; ``origin`` is ``planner`` or the file it came from."""

    text: str
    origin: str


@dataclass(frozen=True)
class Rewound:
    """The history was cut back to its first ``messages`` messages (a failed turn is forgotten)."""

    messages: int


@dataclass(frozen=True)
class Cleared:
    """The conversation was cleared (``/clear``): history and summary are gone."""


@dataclass(frozen=True)
class NoticeShown:
    """A notice the session showed (``level``: info, warning or error; a failed turn's message is an error)."""

    level: str
    text: str


@dataclass(frozen=True)
class Marked:
    """The next user message was sent while the journal kept the applies of ``groups`` (the writes before it):
    a rewind to that message reverts every apply kept since that is not one of them."""

    groups: tuple[str, ...]


Record = Union[Header, MessageAdded, UsageAdded, Summarised, PlanOpened, Rewound, Cleared, NoticeShown, Marked]


def notice_record(level: str, text: str) -> NoticeShown:
    """The record of a notice shown: an unknown level is ``info``, a text over :data:`MAX_NOTICE_CHARS` is cut."""
    cut = text if len(text) <= MAX_NOTICE_CHARS else text[:MAX_NOTICE_CHARS - 1] + "…"
    return NoticeShown(level if level in NOTICE_LEVELS else "info", cut)


@dataclass(frozen=True)
class Malformed:
    """A line that is not exactly a record ljtui writes; ``reason`` says what is wrong."""

    reason: str


class _Bad(Exception):
    """Raised inside the reader; becomes a :class:`Malformed` value at its edge."""


# --- writing -------------------------------------------------------------------


def encode_record(record: Record) -> bytes:
    """One record as a JSON line (UTF-8, ending in a newline); lone surrogates become U+FFFD."""
    text = json.dumps(_to_json(record), ensure_ascii=False, separators=(",", ":"))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = _SURROGATE.sub("\ufffd", text).encode("utf-8")
    return data + b"\n"


def _to_json(record: Record) -> dict[str, Any]:
    if isinstance(record, Header):
        out: dict[str, Any] = {"kind": HEADER, "version": LOG_VERSION, "id": record.id, "started": record.started,
                               "repo": record.repo, "ljtui": record.ljtui}
        if record.resumed_from is not None:
            out["resumed_from"] = record.resumed_from
        return out
    if isinstance(record, MessageAdded):
        return {"kind": MESSAGE, "role": record.message.role,
                "content": [_block_to_json(b) for b in record.message.content]}
    if isinstance(record, UsageAdded):
        return {"kind": USAGE, **{name: getattr(record.usage, name) for name in USAGE_FIELDS},
                "cost_usd": record.cost_usd}
    if isinstance(record, Summarised):
        return {"kind": SUMMARY, "text": record.text, "kept": record.kept}
    if isinstance(record, PlanOpened):
        return {"kind": PLAN, "text": record.text, "origin": record.origin}
    if isinstance(record, Rewound):
        return {"kind": REWIND, "messages": record.messages}
    if isinstance(record, NoticeShown):
        return {"kind": NOTICE, "level": record.level, "text": record.text}
    if isinstance(record, Marked):
        return {"kind": MARK, "groups": list(record.groups)}
    return {"kind": CLEARED}


def _block_to_json(block: Block) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ImageBlock):  # kept as a reference: a resumed session names the image, never resends it
        return {"type": "text", "text": image_reference(block)}
    return {"type": "tool_result", "tool_use_id": block.tool_use_id, "content": block.content,
            "is_error": block.is_error}


def image_reference(block: ImageBlock) -> str:
    """What the session log keeps of an attached image: its name and type, not its bytes."""
    return f"[image {block.name or 'pasted'} ({block.media_type}) was attached here; the log keeps no copy]"


# --- reading -------------------------------------------------------------------


def parse_record(line: bytes) -> Record | Malformed:
    """The record on one line (without its newline), or why it is not one."""
    if len(line) > MAX_RECORD_BYTES:
        return Malformed(f"longer than {MAX_RECORD_BYTES} bytes")
    try:
        data = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        return Malformed("not UTF-8")
    except (ValueError, RecursionError) as exc:
        return Malformed(f"not JSON ({type(exc).__name__})")
    try:
        return _record(data)
    except _Bad as exc:
        return Malformed(str(exc))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _record(data: Any) -> Record:
    if not isinstance(data, dict):
        raise _Bad("not a JSON object")
    kind = data.get("kind")
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise _Bad(f"unknown kind {_shown(kind)}")
    return reader(data)


def _keys(data: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    missing = [k for k in required if k not in data]
    if missing:
        raise _Bad(f"{data['kind']} record lacks {', '.join(missing)}")
    unknown = sorted(set(data) - {"kind", *required, *optional})
    if unknown:
        raise _Bad(f"{data['kind']} record has unknown keys {', '.join(map(_shown, unknown))}")


def _header(data: dict[str, Any]) -> Header:
    _keys(data, ("version", "id", "started", "repo", "ljtui"), ("resumed_from",))
    if data["version"] != LOG_VERSION or isinstance(data["version"], bool):
        raise _Bad(f"session log version {_shown(data['version'])} is not {LOG_VERSION}")
    resumed = data.get("resumed_from")
    return Header(_session_id(data["id"], "id"), _number(data["started"], "started", 0.0, MAX_EPOCH),
                  _text(data["repo"], "repo", MAX_REPO_CHARS), _text(data["ljtui"], "ljtui", MAX_VERSION_CHARS),
                  None if resumed is None else _session_id(resumed, "resumed_from"))


def _message(data: dict[str, Any]) -> MessageAdded:
    _keys(data, ("role", "content"))
    role, content = data["role"], data["content"]
    if role not in ROLE_BLOCKS:
        raise _Bad(f"role {_shown(role)} is neither user nor assistant")
    if not isinstance(content, list) or len(content) > MAX_BLOCKS:
        raise _Bad(f"content is not a list of at most {MAX_BLOCKS} blocks")
    return MessageAdded(Message(role, tuple(_block(b, role) for b in content)))


def _block(data: Any, role: str) -> Block:
    kind = data.get("type") if isinstance(data, dict) else None
    if kind not in ROLE_BLOCKS[role]:
        raise _Bad(f"{'an' if role == 'assistant' else 'a'} {role} message cannot hold a block of type {_shown(kind)}")
    if kind == "text":
        _block_keys(data, ("text",))
        return TextBlock(_text(data["text"], "text"))
    if kind == "tool_use":
        _block_keys(data, ("id", "name", "input"))
        return ToolUseBlock(_text(data["id"], "tool_use id", MAX_TOOL_ID_CHARS, empty=False),
                            _text(data["name"], "tool name", MAX_TOOL_NAME_CHARS, empty=False),
                            _tool_input(data["input"]))
    _block_keys(data, ("tool_use_id", "content", "is_error"))
    if not isinstance(data["is_error"], bool):
        raise _Bad("is_error is not true or false")
    return ToolResultBlock(_text(data["tool_use_id"], "tool_use_id", MAX_TOOL_ID_CHARS, empty=False),
                           _text(data["content"], "tool result"), data["is_error"])


def _block_keys(data: dict[str, Any], keys: tuple[str, ...]) -> None:
    if set(data) != {"type", *keys}:
        raise _Bad(f"a {data['type']} block must have exactly the keys type, {', '.join(keys)}")


def _tool_input(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad("tool input is not an object")
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_INPUT_DEPTH:
            raise _Bad(f"tool input nests deeper than {MAX_INPUT_DEPTH}")
        if isinstance(item, dict):
            for key, child in item.items():
                _text(key, "tool input key")
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            _text(item, "tool input")
    return value


def _usage(data: dict[str, Any]) -> UsageAdded:
    _keys(data, (*USAGE_FIELDS, "cost_usd"))
    usage = Usage(*(_count(data[name], name, MAX_TOKENS) for name in USAGE_FIELDS))
    cost = data["cost_usd"]
    return UsageAdded(usage, None if cost is None else _number(cost, "cost_usd", 0.0, MAX_COST_USD))


def _summary(data: dict[str, Any]) -> Summarised:
    _keys(data, ("text", "kept"))
    return Summarised(_text(data["text"], "summary"), _count(data["kept"], "kept", MAX_COUNT))


def _plan(data: dict[str, Any]) -> PlanOpened:
    _keys(data, ("text", "origin"))
    return PlanOpened(_text(data["text"], "plan"), _text(data["origin"], "origin", MAX_ORIGIN_CHARS))


def _rewind(data: dict[str, Any]) -> Rewound:
    _keys(data, ("messages",))
    return Rewound(_count(data["messages"], "messages", MAX_COUNT))


def _cleared(data: dict[str, Any]) -> Cleared:
    _keys(data, ())
    return Cleared()


def _notice(data: dict[str, Any]) -> NoticeShown:
    _keys(data, ("level", "text"))
    if data["level"] not in NOTICE_LEVELS:
        raise _Bad(f"notice level {_shown(data['level'])} is not one of {', '.join(NOTICE_LEVELS)}")
    return NoticeShown(data["level"], _text(data["text"], "notice", MAX_NOTICE_CHARS))


def _mark(data: dict[str, Any]) -> Marked:
    _keys(data, ("groups",))
    groups = data["groups"]
    if not isinstance(groups, list) or len(groups) > MAX_MARK_GROUPS:
        raise _Bad(f"mark groups is not a list of at most {MAX_MARK_GROUPS}")
    if not all(isinstance(g, str) and GROUP_ID.fullmatch(g) for g in groups):
        raise _Bad("mark groups are not all journal group ids")
    return Marked(tuple(groups))


_READERS = {HEADER: _header, MESSAGE: _message, USAGE: _usage, SUMMARY: _summary, PLAN: _plan,
            REWIND: _rewind, CLEARED: _cleared, NOTICE: _notice, MARK: _mark}


def _text(value: Any, what: str, limit: int = MAX_RECORD_BYTES, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise _Bad(f"{what} is not a string")
    if len(value) > limit:
        raise _Bad(f"{what} is longer than {limit} characters")
    if not empty and not value:
        raise _Bad(f"{what} is empty")
    if _SURROGATE.search(value):
        raise _Bad(f"{what} holds a lone surrogate")
    return value


def _count(value: Any, what: str, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise _Bad(f"{what} is not a whole number from 0 to {limit}")
    return value


def _number(value: Any, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise _Bad(f"{what} is not a number from {low:g} to {high:g}")
    return float(value)


def _session_id(value: Any, what: str) -> str:
    if not isinstance(value, str) or not SESSION_ID.fullmatch(value):
        raise _Bad(f"{what} is not a session id")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
