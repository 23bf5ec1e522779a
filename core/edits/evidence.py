"""Evidence for a failed anchor: the nearest places that look like ``old``.

Fast on large files: rare identifier tokens of the anchor are located with
C-speed ``str.find``; every hit votes for the window start it implies; only
the best-voted windows (and those around the ``where`` line hint) are scored
with :class:`difflib.SequenceMatcher` on whitespace-stripped lines, so
re-indented code still scores high.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from difflib import SequenceMatcher
from itertools import accumulate

from ljtui.core.edits.errors import Candidate

STRONG_LIMIT = 8
WEAK_LIMIT = 4
STRONG_SCORE = 0.6
"""Windows scoring at least this are strong candidates."""
WEAK_SCORE = 0.3
"""Windows scoring at least this (and below strong) are weak candidates."""
MIN_TOKEN_LENGTH = 3
MAX_TOKENS_COUNTED = 24
"""Distinct anchor tokens whose frequency is measured (longest first)."""
MAX_TOKEN_HITS = 400
"""Tokens occurring more often than this are too common to vote."""
MAX_WINDOWS_SCORED = 60
SCORE_ALL_LINES = 300
"""Files with at most this many lines have every window scored."""
HINT_RADIUS = 3
"""Window starts scored on each side of the ``where`` line hint."""
MAX_SCORED_CHARS = 4_000
"""Longest text (each side) given to the similarity scorer."""
BOM = "\ufeff"
EXCERPT_LINES = 3
EXCERPT_CHARS = 160

_TOKEN = re.compile(r"\w{%d,}" % MIN_TOKEN_LENGTH)


def _strip_lines(lines: list[str]) -> str:
    return "\n".join(line.strip() for line in lines)[:MAX_SCORED_CHARS]


def _excerpt(lines: list[str]) -> str:
    text = "\n".join(line.rstrip("\r") for line in lines[:EXCERPT_LINES])
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "\u2026"


def _votes(text: str, line_starts: list[int], anchor: list[str]) -> Counter[int]:
    per_line = [set(_TOKEN.findall(line)) for line in anchor]
    tokens = sorted(set().union(*per_line), key=len, reverse=True)[:MAX_TOKENS_COUNTED]
    counts = {t: text.count(t) for t in tokens}
    votes: Counter[int] = Counter()
    for index, line_tokens in enumerate(per_line):
        usable = [t for t in line_tokens if 0 < counts.get(t, 0) <= MAX_TOKEN_HITS]
        if not usable:
            continue
        token = min(usable, key=lambda t: counts[t])
        at = text.find(token)
        seen: set[int] = set()
        while at != -1:
            line = bisect.bisect_right(line_starts, at) - 1
            if line not in seen:
                seen.add(line)
                votes[max(0, line - index)] += 1
            at = text.find(token, at + 1)
    if not votes:
        _fallback_votes(text, line_starts, anchor, votes)
    return votes


def _fallback_votes(text: str, line_starts: list[int], anchor: list[str], votes: Counter[int]) -> None:
    for index, line in enumerate(anchor):
        needle = line.strip()
        if not needle:
            continue
        at = text.find(needle)
        hits = 0
        while at != -1 and hits < MAX_TOKEN_HITS:
            votes[max(0, bisect.bisect_right(line_starts, at) - 1 - index)] += 1
            hits += 1
            at = text.find(needle, at + 1)
        return


def find_candidates(data: bytes, old: str, file: str, hint_line: int | None = None) -> tuple[Candidate, ...]:
    """The nearest windows of ``data`` to the anchor ``old``.

    Args:
        data: The file's current bytes.
        old: The anchor that did not match exactly once.
        file: Repo-relative path put on each candidate.
        hint_line: 1-based line from the block's ``where`` (``~88``), if any.

    Returns:
        Up to :data:`STRONG_LIMIT` strong then :data:`WEAK_LIMIT` weak
        candidates, best first (ties: nearest to the hint).
    """
    anchor = old.replace("\r\n", "\n").split("\n")
    if anchor and anchor[-1] == "":
        anchor.pop()
    if not anchor or not data:
        return ()
    text = data.decode("utf-8", "replace")
    if text.startswith(BOM) and not old.startswith(BOM):
        text = text[1:]  # a byte order mark is not part of line 1's text: the author cannot see or copy it
    lines = text.split("\n")
    line_starts = [0, *accumulate(len(line) + 1 for line in lines[:-1])]
    votes = _votes(text, line_starts, anchor)
    starts = {s for s, _ in votes.most_common(MAX_WINDOWS_SCORED)}
    if len(lines) <= SCORE_ALL_LINES:
        starts = set(range(len(lines)))
    if hint_line is not None:
        centre = hint_line - 1
        starts.update(s for s in range(centre - HINT_RADIUS, centre + HINT_RADIUS + 1) if 0 <= s < len(lines))
    size = len(anchor)
    wanted = _strip_lines(anchor)
    scored = []
    for start in starts:
        window = lines[start:start + size]
        matcher = SequenceMatcher(None, wanted, _strip_lines(window), autojunk=False)
        if matcher.real_quick_ratio() < WEAK_SCORE or matcher.quick_ratio() < WEAK_SCORE:
            continue
        score = matcher.ratio()
        if score >= WEAK_SCORE:
            distance = abs(start + 1 - hint_line) if hint_line is not None else 0
            scored.append((-score, distance, start))
    scored.sort()
    return _select(scored, lines, size, file)


def _select(scored: list[tuple[float, int, int]], lines: list[str], size: int, file: str) -> tuple[Candidate, ...]:
    taken: list[int] = []
    strong: list[Candidate] = []
    weak: list[Candidate] = []
    for neg_score, _, start in scored:
        score = -neg_score
        if any(abs(start - other) < size for other in taken):
            continue
        bucket, limit, strength = (strong, STRONG_LIMIT, "strong") if score >= STRONG_SCORE else (weak, WEAK_LIMIT, "weak")
        if len(bucket) >= limit:
            continue
        taken.append(start)
        bucket.append(Candidate(file, start + 1, score, _excerpt(lines[start:start + size]), strength))
        if len(strong) >= STRONG_LIMIT and len(weak) >= WEAK_LIMIT:
            break
    return (*strong, *weak)


def merge_candidates(groups: list[tuple[Candidate, ...]]) -> tuple[Candidate, ...]:
    """Candidates of several files, best first, within the strong and weak limits."""
    ranked = sorted((c for group in groups for c in group), key=lambda c: -c.score)
    strong = [c for c in ranked if c.strength == "strong"][:STRONG_LIMIT]
    weak = [c for c in ranked if c.strength == "weak"][:WEAK_LIMIT]
    return (*strong, *weak)
