"""The layer's net change in the review: opened when a turn ends (and on demand), let go of once decided.

:class:`LayerReview` joins the session's :class:`~.service.Layer` and its
:class:`~ljtui.core.review.service.ReviewService`: it reads the layer's net
change, puts its text entries under review as a git diff (every hunk, and
every deletion, creation, move and mode change as its own block), tells
the user in one notice what is held back (binary files and links, which a
text diff cannot carry, named with size and hash; changes under ignored
paths, one line per folder; stale entries), and once the user applied,
rebuilds the layer to what was not decided.

Every method does disk work: call it from a thread.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from ljtui.core.events import Notice
from ljtui.core.layer.diff import describe_whole, diff_text
from ljtui.core.layer.scan import LayerChange, LayerEntry
from ljtui.core.layer.service import Layer
from ljtui.core.ports import EventSink

if TYPE_CHECKING:
    from ljtui.core.review.decisions import Decisions
    from ljtui.core.review.service import ReviewService

ORIGIN = "the layer"
"""How the review names a change that comes from the layer."""
MAX_NAMED = 8
"""Entries named one by one in a notice before the rest are counted."""


@dataclass(frozen=True)
class LayerSummary:
    """What the layer holds, split the way the review shows it.

    Attributes:
        text: the git diff of what is reviewed as text.
        reviewed: entries in that diff.
        whole: binary files and links (not in the diff).
        ignored: creations and modifications under ignored paths (kept without review).
        stale: entries the user's tree changed under (never applied).
        held: what the layer holds that is never delivered, with why.
    """

    text: str
    reviewed: tuple[LayerEntry, ...]
    whole: tuple[LayerEntry, ...]
    ignored: tuple[LayerEntry, ...]
    stale: tuple[LayerEntry, ...]
    held: tuple[tuple[str, str], ...]

    @property
    def empty(self) -> bool:
        return not (self.reviewed or self.whole or self.ignored or self.stale or self.held)

    def lines(self) -> list[str]:
        """One line per group of what is not in the diff (empty when all of it is)."""
        out = []
        if self.ignored:
            folders = Counter(e.path.rsplit("/", 1)[0] + "/" if "/" in e.path else "./" for e in self.ignored)
            for folder, count in sorted(folders.items()):
                out.append(f"kept without review (ignored by git): {folder} {count} file(s)")
        for entry in self.whole[:MAX_NAMED]:
            out.append(f"held in the layer, not reviewable as text: {describe_whole(entry)} (`/diff binary` or "
                       "`ljtui layer apply` writes it whole, asking first)" if not entry.link
                       else f"held in the layer, not reviewable as text: {describe_whole(entry)}")
        if len(self.whole) > MAX_NAMED:
            out.append(f"… and {len(self.whole) - MAX_NAMED} more binary files or links")
        for entry in self.stale[:MAX_NAMED]:
            out.append(f"stale: {entry.stale}")
        if len(self.stale) > MAX_NAMED:
            out.append(f"… and {len(self.stale) - MAX_NAMED} more stale entries")
        for path, why in self.held[:MAX_NAMED]:
            out.append(f"never delivered: {path} ({why})")
        return out


def summarize(change: LayerChange) -> LayerSummary:
    """Split ``change`` into what the review shows as text and what it tells of in a notice."""
    stale = tuple(e for e in change.entries if e.stale)
    fresh = [e for e in change.entries if not e.stale]
    ignored = tuple(e for e in fresh if e in change.unreviewed())
    whole = tuple(e for e in fresh if e not in ignored and (e.binary or e.link))
    reviewed = tuple(e for e in fresh if e not in ignored and e not in whole)
    return LayerSummary(diff_text(reviewed), reviewed, whole, ignored, stale, change.held)


class LayerReview:
    """Opens the layer's net change for review, and settles the layer after the user's apply."""

    def __init__(self, layer: Layer, review: Callable[[], ReviewService], sink: EventSink,
                 tell: Callable[[str], None] | None = None, guard: Callable[[], str | None] | None = None,
                 followup: Callable[[tuple[str, ...]], Awaitable[None]] | None = None) -> None:
        self.layer = layer
        self._review = review
        self._sink = sink
        self._tell = tell
        """Keeps what the model is told with the next message (what was applied and rejected, and why)."""
        self._guard = guard
        self._followup = followup
        """Awaited after an apply with the files it wrote (the commit question)."""
        """Why the change may not be applied now (a delivery gate's run that has not passed), asked before every
        apply; ``None``: nothing holds it back."""

    def summary(self) -> LayerSummary:
        """What the layer holds now."""
        with self.layer.holding():
            return summarize(self.layer.change())

    def open(self, *, quiet: bool = False) -> bool:
        """Put the layer's net change under review; ``quiet``: say nothing when the layer holds nothing (the end
        of a turn that changed nothing). Returns whether a review opened."""
        if not self.layer.status.layered:
            if not quiet:
                self._sink.emit(Notice(f"No layer in this session: {self.layer.status.why}.", "warning"))
            return False
        found = self.summary()
        for line in found.lines():
            self._sink.emit(Notice(line, "warning" if line.startswith("stale") else "info"))
        if not found.text:
            if not quiet and found.empty:
                self._sink.emit(Notice("The layer holds no change."))
            return False
        return self._review().open_decided(found.text, ORIGIN, self.settle, self._guard, self._followup)

    def settle(self, decided: Decisions) -> None:
        """Let go of every entry whose paths the user decided (applied or rejected), keep the rest, and keep for
        the model what was applied and rejected."""
        with self.layer.holding():
            left = self.layer.settle(decided.paths)
        if self._tell is not None:
            self._tell(decided.for_model())
        if left.entries:
            self._sink.emit(Notice(f"The layer still holds {len(left.entries)} change(s) you have not decided "
                                   "(/diff shows them)."))
