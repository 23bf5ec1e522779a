"""Validating the blocks of a review: the chain of accepted blocks, file by file.

A block applies against its file as the accepted blocks before it leave
it. :class:`ChainValidator` is the patcher's validator that also says what
a file holds at that point, so a rejected block can be tried there and a
block's diff can be shown. :class:`CheckPass` validates a whole plan in
steps (a big plan is shown while it is being checked).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ljtui.core.edits import errors as E
from ljtui.core.edits.paths import Target, resolve_target
from ljtui.core.edits.plan_format import EditBlock, Entry
from ljtui.core.edits.validate import Reader, Validator

if TYPE_CHECKING:
    from ljtui.core.review.review_block import ReviewBlock


class ChainValidator(Validator):
    """A :class:`Validator` that also tells what a file holds now."""

    def holds(self, key: str, real: Path) -> bytes | None:
        """``key``'s bytes as the blocks committed so far leave them (``None``: missing or unreadable)."""
        if key in self._state:
            return self._state[key]
        if key in self._original:
            return self._original[key]
        try:
            return self.reader(real)
        except OSError:
            return None

    def first_error(self, block: EditBlock) -> E.EditError | None:
        """Check one block alone, committing it when it applies; its error, or ``None``."""
        [outcome] = self.check([Entry(f"edit-{block.number}", (block,))])
        return outcome.errors[0] if outcome.errors else None


def read_once(reader: Reader) -> Reader:
    """``reader`` remembering each file it read, for one validation pass."""
    seen: dict[Path, bytes | None] = {}

    def read(path: Path) -> bytes | None:
        if path not in seen:
            seen[path] = reader(path)
        return seen[path]

    return read


def trial(root: Path, rb: ReviewBlock, before: bytes | None, read: Reader,
          *, evidence: bool = True) -> tuple[E.EditError | None, bytes | None]:
    """Validate ``rb`` against ``before`` without letting it change the chain.

    Returns:
        The block's error (or ``None``) and the file's bytes after it.
    """
    tried = Validator(root, reader=lambda p: before if p == rb.real else read(p), evidence=evidence)
    [outcome] = tried.check([Entry("trial", (rb.block,))])
    if outcome.errors:
        return outcome.errors[0], None
    change = tried.changes().get(rb.key)
    return None, (change.after if change is not None else before)


def resolve_all(root: Path, blocks: Iterable[ReviewBlock]) -> dict[str, Target]:
    """Set each block's ``key`` and ``real`` (each distinct path resolved once); the valid targets by key."""
    seen: dict[str, Target | E.EditError] = {}
    targets: dict[str, Target] = {}
    def resolved(path: str, number: int) -> Target | E.EditError:
        target = seen.get(path)
        if target is None:
            target = seen[path] = resolve_target(root, path, number, root_resolved=True)
        return target

    for rb in blocks:
        target = resolved(rb.block.file, rb.number)
        if isinstance(target, E.EditError):
            rb.key, rb.real = rb.block.file, None
        else:
            rb.key, rb.real = target.key, target.real
            targets.setdefault(target.key, target)
        if rb.block.moved_from is not None:
            moved = resolved(rb.block.moved_from, rb.number)
            if not isinstance(moved, E.EditError):
                rb.moved_key = moved.key
                targets.setdefault(moved.key, moved)
    return targets


class FailureCache:
    """Errors of blocks that did not apply, kept from one pass to the next.

    Looking for the nearest candidates of a failed anchor is the costly part
    of a check. A block tried again against the very same bytes fails the
    same way, so its error is reused — unless its evidence came from other
    files (no strong candidate in its own), which the blocks before it may
    have changed.
    """

    def __init__(self) -> None:
        self._errors: dict[tuple[int, bool], tuple[bytes | None, E.EditError]] = {}

    def get(self, rb: ReviewBlock, before: bytes | None) -> E.EditError | None:
        kept = self._errors.get((rb.number, rb.accepted))
        if kept is None or not (kept[0] is before or kept[0] == before):
            return None
        return kept[1]

    def keep(self, rb: ReviewBlock, before: bytes | None, error: E.EditError | None) -> None:
        if error is None or (rb.accepted and not _own_evidence(rb, error)):
            self._errors.pop((rb.number, rb.accepted), None)
        else:
            self._errors[(rb.number, rb.accepted)] = (before, error)


def _own_evidence(rb: ReviewBlock, error: E.EditError) -> bool:
    """The candidates were found in the block's own file alone (a strong one was there)."""
    return not error.candidates or any(c.strength == "strong" and c.file == rb.block.file for c in error.candidates)


class CheckPass:
    """One validation of every block in plan order, done in steps.

    Blocks before ``done`` are validated; the accepted ones chain in one
    validator, so a failed anchor's evidence can look in the plan's other
    files as the blocks before it leave them.
    """

    def __init__(self, root: Path, reader: Reader, blocks: list[ReviewBlock],
                 failures: FailureCache | None = None) -> None:
        self.root = root
        self.read = read_once(reader)
        self.validator = ChainValidator(root, reader=self.read)
        self.blocks = blocks
        self.failures = failures or FailureCache()
        self.done = 0
        for rb in blocks:
            rb.checked = False

    @property
    def finished(self) -> bool:
        return self.done >= len(self.blocks)

    def run(self, count: int | None = None) -> bool:
        """Validate the next ``count`` blocks (all of them when ``None``); True once every block is."""
        stop = len(self.blocks) if count is None else min(len(self.blocks), self.done + count)
        while self.done < stop:
            self._check(self.blocks[self.done])
            self.done += 1
        return self.finished

    def _check(self, rb: ReviewBlock) -> None:
        before = self.validator.holds(rb.key, rb.real) if rb.real is not None else None
        known = self.failures.get(rb, before) if rb.real is not None else None
        if rb.accepted:
            rb.error = self._accepted_error(rb, known)
        else:
            rb.error = known or trial(self.root, rb, before, self.read)[0]
        if rb.real is not None:
            self.failures.keep(rb, before, rb.error)
        rb.checked = True

    def _accepted_error(self, rb: ReviewBlock, known: E.EditError | None) -> E.EditError | None:
        """Check an accepted block in the chain; a known failure skips the search for candidates."""
        if known is None:
            return self.validator.first_error(rb.block)
        self.validator.evidence = False  # still loads the file, so later blocks' evidence sees it
        try:
            error = self.validator.first_error(rb.block)
        finally:
            self.validator.evidence = True
        return known if error is not None else None


def replay(root: Path, reader: Reader, chain: list[ReviewBlock], rb: ReviewBlock) -> tuple[bytes | None, bytes | None]:
    """``rb``'s file before and after it, replaying the accepted blocks of ``chain`` (its file's blocks) before it.

    Returns:
        ``(before, after)``; ``after`` is ``None`` when ``rb`` does not apply.
    """
    validator = ChainValidator(root, reader=reader, evidence=False)
    for other in chain:
        if other is rb:
            break
        if other.accepted:
            validator.first_error(other.block)
    assert rb.real is not None
    before = validator.holds(rb.key, rb.real)
    if not rb.accepted:
        return before, trial(root, rb, before, reader, evidence=False)[1]
    if validator.first_error(rb.block) is not None:
        return before, None
    return before, validator.holds(rb.key, rb.real)


def applies_in_chain(root: Path, reader: Reader, chain: list[ReviewBlock], rb: ReviewBlock) -> bool:
    """Whether the accepted ``rb`` applies after the accepted blocks of its file before it."""
    return replay(root, reader, chain, rb)[1] is not None
