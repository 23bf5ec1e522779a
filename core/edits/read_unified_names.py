"""File names, timestamps and modes in the headers of unified and git diffs.

Git and GNU diff quote a name holding special characters the C way
(``"a/sp\\303\\251cial \\"q\\".txt"``): octal escapes stand for bytes, which
decode as UTF-8 with ``surrogateescape``, as the diff text itself was.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

DEV_NULL = "/dev/null"
SYMLINK, SUBMODULE = 0o120000, 0o160000

_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_OCTAL = re.compile(r"[0-7]{1,3}")
_SPACE_STAMP = re.compile(r"[ \t]+\d{4}-\d\d-\d\d[ \t]+\d\d:\d\d:\d\d(?:\.\d+)?(?:[ \t]+[-+]\d{4})?[ \t]*\Z")
_EPOCH = re.compile(r"(1969-12-31|1970-01-01) (\d\d):(\d\d):(\d\d)(?:\.0+)? ([-+])(\d\d):?(\d\d)\Z")
_MODE = re.compile(r"[0-7]{6}\Z")


class BadName(ValueError):
    """A name in a diff header that cannot be read; the message says why."""


def unquote(text: str, at: int = 0) -> tuple[str, int]:
    """Read the C-quoted name that starts at ``text[at]`` (a double quote).

    Args:
        text: The header text.
        at: Index of the opening quote.

    Returns:
        The decoded name and the index just after its closing quote.

    Raises:
        BadName: The quote is not closed, or an escape is unknown.
    """
    out = bytearray()
    i = at + 1
    while i < len(text):
        char = text[i]
        if char == '"':
            return out.decode("utf-8", "surrogateescape"), i + 1
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            i += 1
            continue
        octal = _OCTAL.match(text, i + 1)
        if octal:
            out.append(int(octal.group(0), 8) & 0xFF)
            i = octal.end()
        elif i + 1 < len(text) and text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
        else:
            raise BadName(f"unknown escape {text[i:i + 2]!r} in the quoted name {text[at:]!r}")
    raise BadName(f"the quoted name {text[at:]!r} has no closing quote")


def split_side(text: str, *, stamps: bool) -> tuple[str, str]:
    """Split the text after ``--- ``/``+++ `` into the name and what follows it.

    An unquoted name ends at the first tab (git writes one after a name with a
    space; ``diff -u`` writes the timestamp after it). With ``stamps`` (plain
    ``diff -u``), a name with no tab loses a trailing space-separated timestamp.

    Returns:
        ``(name, rest)``: ``rest`` is the timestamp or other text after the name, stripped.
    """
    if text.startswith('"'):
        name, end = unquote(text)
        return name, text[end:].strip()
    if "\t" in text:
        name, rest = text.split("\t", 1)
        return name, rest.strip()
    if stamps:
        match = _SPACE_STAMP.search(text)
        if match and match.start() > 0:
            return text[:match.start()], match.group(0).strip()
    return text, ""


def is_epoch(stamp: str) -> bool:
    """True when a ``diff -u`` timestamp is the Unix epoch: ``diff -N``'s mark of an absent file."""
    match = _EPOCH.match(stamp)
    if not match:
        return False
    day, hour, minute, second, sign, zone_h, zone_m = match.groups()
    offset = timedelta(hours=int(zone_h), minutes=int(zone_m)) * (1 if sign == "+" else -1)
    try:
        when = datetime(int(day[:4]), int(day[5:7]), int(day[8:]), int(hour), int(minute), int(second),
                        tzinfo=timezone(offset))
    except ValueError:
        return False
    return when == datetime(1970, 1, 1, tzinfo=timezone.utc)


def strip_path(name: str, count: int) -> str | None:
    """``name`` without its first ``count`` components, as ``patch -pN`` strips them.

    Runs of slashes count as one separator. ``None`` when too few components are left.
    """
    rest = name
    for _ in range(count):
        cut = rest.find("/")
        if cut < 0:
            return None
        rest = rest[cut + 1:].lstrip("/")
    return rest or None


def git_header_names(text: str, strip: int) -> tuple[str, str] | None:
    """The two names of a ``diff --git <a> <b>`` line (the text after ``diff --git ``), before stripping.

    Quoted names are read as such. Unquoted names may hold spaces, so the split
    is the one where both names are equal once ``strip`` components are removed,
    as git reads them; ``None`` when no split is (a rename whose names hold spaces).
    """
    try:
        if text.startswith('"'):
            first, end = unquote(text)
            rest = text[end:]
            if not rest.startswith(" "):
                return None
            rest = rest[1:]
            second = unquote(rest)[0] if rest.startswith('"') else rest
            return first, second
        if text.endswith('"'):
            for cut in (m.start() for m in re.finditer(' "', text)):
                second, end = unquote(text, cut + 1)
                if end == len(text):
                    return text[:cut], second
            return None
    except BadName:
        return None
    spaces = [m.start() for m in re.finditer(" ", text)]
    if len(spaces) == 1:
        return text[:spaces[0]], text[spaces[0] + 1:]
    for cut in spaces:
        first, second = text[:cut], text[cut + 1:]
        if strip_path(first, strip) is not None and strip_path(first, strip) == strip_path(second, strip):
            return first, second
    return None


def parse_mode(text: str) -> int | None:
    """A git mode (``100644``) as an int; ``None`` when it is not six octal digits."""
    text = text.strip()
    return int(text, 8) if _MODE.match(text) else None
