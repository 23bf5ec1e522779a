"""Playbook search (PB-5): tag matches and keyword hits, nudged by the record.

A query is free text and optional tags. The score of a playbook is

* per query tag, its best match among the playbook's tags: exact
  (case-insensitive) :data:`TAG_EXACT`, partial (one contains the other)
  :data:`TAG_PARTIAL`;
* per keyword of the text, a hit in the title :data:`HIT_TITLE`, in a tag
  :data:`HIT_TAGS`, in ``when_to_use`` :data:`HIT_WHEN`, in the body
  :data:`HIT_BODY` (each field counts once per keyword);
* then nudged by the record, ``NUDGE * (ok - fail) / (ok + fail + 1)``,
  always less than one body hit, so between equals proven playbooks rank
  first and the record never outweighs a match.

A playbook nothing matched is not a result, however good its record.

Keywords are the words of the text (lowercase, at least
:data:`MIN_WORD_CHARS` characters) and, for Chinese, Japanese and Korean,
which have no spaces between words, the character bigrams of each run of
those scripts (a lone character stands for itself): "沙箱构建" is
``沙箱 箱构 构建``, and matches "Windows 沙箱里跑构建" twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from ljtui.core.playbooks.model import Playbook

TAG_EXACT = 6
TAG_PARTIAL = 4
HIT_TITLE = 5
HIT_TAGS = 4
HIT_WHEN = 3
HIT_BODY = 1
NUDGE = 0.5
"""Largest nudge from the record, in points (less than :data:`HIT_BODY`)."""
MIN_WORD_CHARS = 2
"""Shorter words of a non-CJK script are not keywords ("a", "x")."""
MAX_KEYWORDS = 64
"""Keywords beyond this many in one query are ignored."""
SCORE_DIGITS = 3
"""Digits a reported score is rounded to."""
CJK_RANGES = ("\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
              "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f")
"""Han (with its radicals and extensions), kana, bopomofo and Hangul syllables."""
_RUN_RE = re.compile(f"([{CJK_RANGES}]+)|([^\\W_]+)")


@dataclass(frozen=True)
class SearchHit:
    """A playbook and its score."""

    playbook: Playbook
    score: float


def keywords(text: str) -> tuple[str, ...]:
    """The keywords of ``text``: its words, and character bigrams of its CJK runs (order kept, no repeats)."""
    found: dict[str, None] = {}
    for cjk, word in _RUN_RE.findall(text.casefold()):
        if cjk:
            grams = [cjk] if len(cjk) == 1 else [cjk[i:i + 2] for i in range(len(cjk) - 1)]
            found.update(dict.fromkeys(grams))
        elif len(word) >= MIN_WORD_CHARS:
            found[word] = None
    return tuple(found)[:MAX_KEYWORDS]


def tag_score(query_tags: Iterable[str], tags: Sequence[str]) -> int:
    """Per query tag, the best of exact (:data:`TAG_EXACT`) and partial (:data:`TAG_PARTIAL`) matches."""
    own = [t.casefold() for t in tags]
    total = 0
    for wanted in {q.strip().casefold() for q in query_tags if q.strip()}:
        if wanted in own:
            total += TAG_EXACT
        elif any(wanted in tag or tag in wanted for tag in own):
            total += TAG_PARTIAL
    return total


def keyword_score(words: Iterable[str], playbook: Playbook) -> int:
    """Per keyword, a hit in each of title, tags, ``when_to_use`` and body."""
    fields = ((playbook.title.casefold(), HIT_TITLE), ("\n".join(playbook.tags).casefold(), HIT_TAGS),
              (playbook.when_to_use.casefold(), HIT_WHEN), (playbook.body.casefold(), HIT_BODY))
    return sum(weight for word in words for text, weight in fields if word in text)


def nudge(ok: int, fail: int) -> float:
    """The record's nudge: positive for a proven playbook, negative for a failing one, below one body hit."""
    return NUDGE * (ok - fail) / (ok + fail + 1)


def score(playbook: Playbook, text: str, tags: Iterable[str] = ()) -> float:
    """``playbook``'s score for the query; 0 when nothing matched."""
    matched = tag_score(tags, playbook.tags) + keyword_score(keywords(text), playbook)
    if not matched:
        return 0.0
    return matched + nudge(playbook.stats.ok, playbook.stats.fail)


def search(playbooks: Iterable[Playbook], text: str, tags: Iterable[str] = (), *,
           limit: int | None = None) -> list[SearchHit]:
    """The playbooks that match, best first (ties by id)."""
    words = keywords(text)
    wanted = tuple(tags)
    hits = []
    for playbook in playbooks:
        matched = tag_score(wanted, playbook.tags) + keyword_score(words, playbook)
        if matched:
            total = matched + nudge(playbook.stats.ok, playbook.stats.fail)
            hits.append(SearchHit(playbook, round(total, SCORE_DIGITS)))
    hits.sort(key=lambda hit: (-hit.score, hit.playbook.id))
    return hits[:limit] if limit is not None else hits
