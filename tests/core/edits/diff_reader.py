"""A reader of ljtui's drawn diffs that rebuilds the bytes they stand for: exactness, checked from the outside.

It knows only the rules a person reading the diff is given (the notes and
the legend in :mod:`ljtui.core.edits.diff_drawing`), never the drawing code.
"""

from __future__ import annotations

import re

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
ESCAPE = re.compile(r"\\(\\|t|r|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")
NO_NEWLINE = "\\ No newline at end of file"
CR_MARK = "\u240d"
BOM_DRAWN = "\\ufeff"
BOM = b"\xef\xbb\xbf"


def unescape(text: str) -> bytes:
    """The bytes an escaped line's text stands for."""
    out = bytearray()
    at = 0
    for match in ESCAPE.finditer(text):
        out += text[at:match.start()].encode("utf-8")
        code = match.group(1)
        if code in ("\\", "t", "r"):
            out += {"\\": b"\\", "t": b"\t", "r": b"\r"}[code]
        elif code[0] == "x":
            out.append(int(code[1:], 16))
        else:
            out += chr(int(code[1:], 16)).encode("utf-8")
        at = match.end()
    return bytes(out + text[at:].encode("utf-8"))


class Rules:
    """What the notes of one diff say about how its lines are drawn."""

    def __init__(self, notes: list[str]) -> None:
        self.escaped = any(n.startswith("escaped:") for n in notes)
        self.hex = any(n.startswith("binary (") for n in notes)
        self.all_crlf = any(n.startswith("line endings:") and "CRLF on every line shown, not marked" in n
                            for n in notes)

    def line(self, text: str, first: bool, lf: bool) -> bytes:
        """The bytes of one drawn line (without its mark), ``first`` when it is line 1 of its side."""
        if self.hex:
            return bytes.fromhex(text[10:text.index("|", 10)].replace(" ", ""))
        cr = text.endswith(CR_MARK)
        if cr:
            text = text[:-1]
        elif self.all_crlf and lf:
            cr = True
        if self.escaped:
            body = unescape(text)
        elif first and text.startswith(BOM_DRAWN):
            body = BOM + text[len(BOM_DRAWN):].encode("utf-8")
        else:
            body = text.encode("utf-8")
        return body + (b"\r" if cr else b"") + (b"\n" if lf else b"")


def split(data: bytes | None, hex_lines: bool) -> list[bytes]:
    if not data:
        return []
    if hex_lines:
        return [data[at:at + 16] for at in range(0, len(data), 16)]
    return re.findall(rb"[^\n]*\n|[^\n]+", data)


def rebuild(before: bytes | None, lines: list[str]) -> bytes:
    """``before`` with the drawn diff ``lines`` applied, every context and removed line checked byte for byte."""
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ "), lines[:2]
    body = lines[2:]
    first_hunk = next((n for n, line in enumerate(body) if line.startswith("@@")), len(body))
    rules = Rules(body[:first_hunk])
    old = split(before, rules.hex)
    out: list[bytes] = []
    at = 0
    records = body[first_hunk:]
    for n, line in enumerate(records):
        match = HUNK.match(line)
        if match:
            start = int(match.group(1)) - (0 if match.group(2) == "0" else 1)
            out += old[at:start]
            at = start
            continue
        if line == NO_NEWLINE:
            continue
        lf = rules.hex or not (n + 1 < len(records) and records[n + 1] == NO_NEWLINE)
        mark, text = line[0], line[1:]
        if mark in " -":
            assert rules.line(text, at == 0, lf) == old[at], (line, old[at])
            at += 1
            if mark == " ":
                out.append(old[at - 1])
        else:
            assert mark == "+", line
            out.append(rules.line(text, len(out) == 0, lf))
    return b"".join(out + old[at:])
