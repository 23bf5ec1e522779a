"""Keeping each planner prompt under its token budget (``planner.prompt_budget_tokens``).

Every turn re-sends the whole transcript, so without a bound the prompt
grows with every file read. :func:`fit_transcript` keeps it under the
budget by eliding older entries, oldest first: tool results before
anything else, then the model's older replies and plan checks. An elided
entry keeps its heading and gets a one-line note saying what was there
and how to get it back. The request, the instructions, harness notes and
the latest turn's entries are never elided.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from ljtui.core.config import PlannerConfig
from ljtui.core.repo import CHARS_PER_TOKEN

DEFAULT_PROMPT_BUDGET_TOKENS = PlannerConfig().prompt_budget_tokens
"""Estimated tokens one prompt may reach, unless configured otherwise."""
PROTECTED_TAIL = 2
"""Latest transcript entries never elided: the model's last reply and what answered it."""
ELIDED_NOTE = "[elided to stay within the prompt budget: {what}; {how}]"
"""The body an elided entry gets."""
ENTRY_SEPARATOR = "\n\n"
"""How entries are joined in the prompt (counted for each entry)."""


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` is estimated to cost: its characters over :data:`CHARS_PER_TOKEN`, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Entry:
    """One transcript section.

    Attributes:
        heading: the Markdown heading the section starts with.
        body: its text.
        rank: elision order: entries of rank 0 (tool results) go first, then
            rank 1 (replies, plan checks); ``None`` is never elided.
        what: what the section held, for the elision note.
        how: how the model gets it back, for the elision note.
    """

    heading: str
    body: str
    rank: int | None = None
    what: str = ""
    how: str = ""

    def render(self) -> str:
        """The section as it appears in the prompt."""
        return f"{self.heading}\n\n{self.body}"

    def elided(self) -> Entry:
        """This entry with its body replaced by the elision note."""
        return replace(self, body=ELIDED_NOTE.format(what=self.what, how=self.how), rank=None)


def fit_transcript(entries: Sequence[Entry], fixed_chars: int, budget_tokens: int) -> list[Entry]:
    """The entries, with the oldest elidable ones elided until the prompt fits.

    Args:
        entries: the transcript, oldest first.
        fixed_chars: characters of everything else in the prompt (system
            prompt, request, instructions).
        budget_tokens: the estimated tokens the whole prompt may reach.

    Returns:
        The entries to render. When eliding everything allowed is still not
        enough, the prompt goes over the budget rather than losing the
        request, the instructions or the latest turn.
    """
    fitted = list(entries)
    total = fixed_chars + sum(len(e.render()) + len(ENTRY_SEPARATOR) for e in fitted)
    budget_chars = budget_tokens * CHARS_PER_TOKEN
    if total <= budget_chars:
        return fitted
    candidates = [i for i, e in enumerate(fitted[:-PROTECTED_TAIL]) if e.rank is not None]
    for index in sorted(candidates, key=lambda i: (fitted[i].rank, i)):
        if total <= budget_chars:
            break
        short = fitted[index].elided()
        if len(short.body) < len(fitted[index].body):
            total -= len(fitted[index].body) - len(short.body)
            fitted[index] = short
    return fitted
