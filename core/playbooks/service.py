"""The playbook service: every playbook operation, for the engine's tools, ``/playbook`` and ``ljtui playbook``.

It reads both libraries from disk on every call (a hand edit or a ``git
pull`` is seen at once), writes through the store's lock, reports changes
as events on the session's sink, and asks the user through the session's
Approver (``ask``) before a playbook becomes active: the model cannot
promote one by itself, and without a terminal the answer is no.

``for_model`` marks a call made for the model (its tools, its skills): then
the repository's playbooks take part only when the user trusts the
repository. The user's own commands read everything.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from ljtui.core.approval import YES, ApprovalRequest, Decision, confirm
from ljtui.core.asking import Ask
from ljtui.core.clock import Clock, SystemClock
from ljtui.core.events import Event, Notice
from ljtui.core.ids import title_id, unique_id
from ljtui.core.playbooks import views
from ljtui.core.playbooks.demotion import with_feedback
from ljtui.core.playbooks.events import PlaybookDemoted, PlaybookSaved, PlaybookStatusChanged
from ljtui.core.playbooks.model import (
    ACTIVE, DEPRECATED, DRAFT, OUTCOMES, PROJECT, SCOPES, Playbook, PlaybookError, PlaybookStats, iso_time,
    render_body,
)
from ljtui.core.playbooks.search import SearchHit, search
from ljtui.core.playbooks.skills import SKILL_PREFIX
from ljtui.core.playbooks.store import REPOSITORY, USER_LIBRARY, Library, PlaybookStore, PlaybookStoreError

ID_PREFIX = "pb"
"""The prefix of an id built from a title with no ASCII letter or digit (PB-2)."""
PROMOTE_KIND = "playbook_promote"
"""The kind of the approval request that makes a playbook active."""
"""An active playbook is offered as the skill ``playbook-<id>`` (PB-6)."""
RECALL_MIN_SCORE = 8
"""A request recalls an active playbook only when it scores at least this (a title hit and a tag or
``when_to_use`` hit, or better)."""
RECALL_MIN_WORDS = 2
"""… and shares at least this many distinct words (of :data:`MIN_SHARED_CHARS` letters or more, not
:data:`COMMON_WORDS`) with its title, tags or ``when_to_use``: one shared verb ("add") recalls nothing."""
MIN_SHARED_CHARS = 3
COMMON_WORDS = frozenset({"the", "and", "for", "with", "that", "this", "from", "into", "when", "must", "should",
                          "make", "then", "also", "all", "any", "are", "was", "not", "but", "its", "our", "your"})


def shared_words(text: str, playbook: Playbook) -> set[str]:
    """The meaningful words ``text`` shares with the playbook's title, tags and ``when_to_use``."""
    from ljtui.core.playbooks.search import keywords

    def meaningful(words: Iterable[str]) -> set[str]:
        return {w for w in words if (len(w) >= MIN_SHARED_CHARS or not w.isascii()) and w not in COMMON_WORDS}

    described = " ".join((playbook.title, " ".join(playbook.tags), playbook.when_to_use))
    return meaningful(keywords(text)) & meaningful(keywords(described))
MAX_PROMPT_STEPS = 12
"""SOP steps shown in the promotion question (the rest counted)."""
USAGE = "/playbook list | show ID | promote ID | deprecate ID | draft ID | stats | gates [ID]"
GATES_LATER = ("The delivery gates have their own commands: /gates [ID] in the app, ljtui gates list|show ID "
               "headless.")



async def _deny(request: ApprovalRequest) -> Decision:
    return Decision(request.safe)


@dataclass(frozen=True)
class Outcome:
    """The result of one operation: whether it happened, the sentence for the model or the user, the playbook."""

    ok: bool
    message: str
    playbook: Playbook | None = None


@dataclass(frozen=True)
class PlaybookReply:
    """What a ``/playbook`` command shows: a title and lines, or (no lines) one notice at ``level``."""

    title: str
    lines: tuple[str, ...] = ()
    level: str = "info"
    skills: tuple[str, ...] | None = None
    """When a status changed: every skill ``/NAME`` can start now (active playbooks come and go)."""


class PlaybookService:
    """Playbooks of one repository for one user, as a session sees them."""

    def __init__(self, root: Path | None, emit: Callable[[Event], None], ask: Ask | None = None,
                 clock: Clock | None = None, env: Mapping[str, str] | None = None,
                 session_id: Callable[[], str | None] | None = None) -> None:
        self.store = PlaybookStore(root, env)
        self.emit = emit
        self.ask = ask or _deny
        self.clock = clock or SystemClock()
        self.session_id = session_id or (lambda: None)
        self.following: str | None = None
        """The playbook whose SOP the running task plan follows (set while the plan runs)."""

    # --- reading ---------------------------------------------------------------------------

    def load(self, *, for_model: bool) -> Library:
        """Both libraries (disk work); the repository's for the model only when trusted."""
        return self.store.load(for_model=for_model)

    def find(self, playbook_id: str, *, for_model: bool) -> Outcome:
        """The playbook called ``playbook_id``, or why there is none."""
        library = self.load(for_model=for_model)
        playbook = library.get(playbook_id.strip())
        if playbook is not None:
            return Outcome(True, "", playbook)
        hidden = (" (the repository's playbooks are not offered to the model: the repository is not trusted)"
                  if library.hidden else "")
        known = ", ".join(p.id for p in library.playbooks[:20]) or "none"
        return Outcome(False, f"there is no playbook {playbook_id.strip()!r}{hidden}; known: {known}")

    def search(self, text: str, tags: Iterable[str] = (), *, for_model: bool, statuses: Sequence[str] | None = None,
               limit: int | None = None) -> tuple[list[SearchHit], Library]:
        """Matching playbooks, best first (PB-5), among ``statuses`` (default: all)."""
        library = self.load(for_model=for_model)
        pool = [p for p in library.playbooks if statuses is None or p.status in statuses]
        return search(pool, text, tags, limit=limit), library

    def recall(self, text: str) -> SearchHit | None:
        """The active playbook a request recalls (trust respected), or None: for the engine to announce."""
        hits, _ = self.search(text, for_model=True, statuses=(ACTIVE,), limit=1)
        if not hits or hits[0].score < RECALL_MIN_SCORE:
            return None
        return hits[0] if len(shared_words(text, hits[0].playbook)) >= RECALL_MIN_WORDS else None

    def record_of(self, playbook_id: str) -> PlaybookStats | None:
        """A playbook's record (uses, ok, fail): the same signals feed a gate's pass rate for its task family."""
        found = self.find(playbook_id, for_model=False)
        return found.playbook.stats if found.playbook else None

    def path_of(self, playbook: Playbook) -> str:
        """Where the playbook's file is, as the user sees it."""
        return self.store.path_of(playbook.source, playbook.id)

    # --- changing ----------------------------------------------------------------------------

    def save(self, title: str, when_to_use: str, *, tags: Sequence[str] = (),
             sections: Mapping[str, Sequence[str] | str] | None = None, scope: str = PROJECT) -> Outcome:
        """Save a new draft (PB-3: ``playbook_save`` never makes an active one); its id is built from the title."""
        if scope not in SCOPES:
            return Outcome(False, f"scope must be one of {', '.join(SCOPES)}")
        source = REPOSITORY if scope == PROJECT else USER_LIBRARY
        now = iso_time(self.clock.now())
        try:
            with self.store.locked(source):
                pid = unique_id(title_id(title, ID_PREFIX), self.store.taken_ids())
                draft = _checked(Playbook(pid, title, DRAFT, scope, tuple(tags), when_to_use, now, now,
                                          self.session_id(), PlaybookStats(),
                                          render_body(" ".join(title.split()),
                                                      {"When to use": when_to_use, **(sections or {})}), source))
                self.store.write(source, draft)
        except (PlaybookStoreError, PlaybookError) as exc:
            return Outcome(False, f"the playbook was not saved: {exc}")
        path = self.path_of(draft)
        self.emit(PlaybookSaved(draft.id, draft.title, path))
        trusted = source != REPOSITORY or self.store.trusted()
        later = "" if trusted else (" This repository is not trusted, so its playbooks are not offered to the "
                                    "model until the user runs `ljtui trust`.")
        return Outcome(True, f"saved draft playbook {draft.id!r} to {path}. Only the user can make it active "
                             f"(`/playbook promote {draft.id}`).{later}", draft)

    async def promote(self, playbook_id: str, *, for_model: bool = False) -> Outcome:
        """Ask the user to make a playbook active; only a yes changes it."""
        found = await asyncio.to_thread(self.find, playbook_id, for_model=for_model)
        playbook = found.playbook
        if playbook is None:
            return found
        if playbook.status == ACTIVE:
            return Outcome(True, f"playbook {playbook.id!r} is already active", playbook)
        decision = await self.ask(self.promote_request(playbook))
        if decision.choice != YES:
            if for_model:
                return Outcome(False, f"the user did not promote playbook {playbook.id!r}; it stays "
                                      f"{playbook.status}. Do not ask again unless the user wants it.", playbook)
            return Outcome(False, f"playbook {playbook.id!r} was not promoted; it stays {playbook.status}", playbook)
        return await asyncio.to_thread(self._set_status, playbook, ACTIVE)

    def promote_request(self, playbook: Playbook) -> ApprovalRequest:
        """The question that makes ``playbook`` active: what it says, and what being active means."""
        steps = playbook.sop_steps()
        shown = [f"  {n}. {step}" for n, step in enumerate(steps[:MAX_PROMPT_STEPS], start=1)]
        if len(steps) > MAX_PROMPT_STEPS:
            shown.append(f"  … and {len(steps) - MAX_PROMPT_STEPS} more steps")
        where = ("in this repository's sessions once it is trusted" if playbook.source == REPOSITORY
                 else "in every repository")
        lines = [playbook.title, f"{self.path_of(playbook)} · now {playbook.status} · {views.record(playbook)}",
                 f"When to use: {playbook.when_to_use or '-'}", "SOP:", *(shown or ["  (no SOP steps)"]), "",
                 f"Once active it is offered to the model as the skill playbook-{playbook.id} {where}, "
                 "and recalled for similar requests."]
        return confirm(PROMOTE_KIND, f"Make playbook {playbook.id} active?", lines, "promote it",
                       "keep it as it is", subject=playbook.id)

    def set_status(self, playbook_id: str, status: str) -> Outcome:
        """Deprecate a playbook or send it back to draft (the user's own command: nothing to ask)."""
        if status not in (DRAFT, DEPRECATED):
            return Outcome(False, "only promote makes a playbook active, and it asks first")
        found = self.find(playbook_id, for_model=False)
        if found.playbook is None:
            return found
        if found.playbook.status == status:
            return Outcome(True, f"playbook {found.playbook.id!r} is already {status}", found.playbook)
        return self._set_status(found.playbook, status)

    def feedback(self, playbook_id: str, outcome: str, *, for_model: bool = True) -> Outcome:
        """Record one use's outcome (``ok`` / ``fail``), then demote an active playbook its record condemns."""
        if outcome not in OUTCOMES:
            return Outcome(False, f"outcome must be one of {', '.join(OUTCOMES)}")
        found = self.find(playbook_id, for_model=for_model)
        if found.playbook is None:
            return found
        now = iso_time(self.clock.now())
        try:
            before, after = self.store.update(found.playbook.source, found.playbook.id,
                                              lambda p: with_feedback(p, outcome, now))
        except PlaybookStoreError as exc:
            return Outcome(False, f"the feedback was not recorded: {exc}")
        s = after.stats
        message = f"recorded {outcome} for playbook {after.id!r}: {s.uses} uses, {s.ok} ok, {s.fail} fail"
        if after.status != before.status:
            self.emit(PlaybookDemoted(after.id, before.status, after.status, s.ok, s.fail))
            self.emit(Notice(f"Playbook {after.id} was demoted from {before.status} to {after.status} "
                             f"({s.ok} ok, {s.fail} fail).", "warning"))
            message += f". Its record demoted it from {before.status} to {after.status}"
        return Outcome(True, message, after)

    def record_skill_outcome(self, skill: str, ok: bool) -> Outcome | None:
        """Feedback for a run started from the skill ``playbook-<id>`` (None for any other skill)."""
        if not skill.startswith(SKILL_PREFIX):
            return None
        return self.feedback(skill.removeprefix(SKILL_PREFIX), "ok" if ok else "fail", for_model=False)

    def _set_status(self, playbook: Playbook, status: str) -> Outcome:
        now = iso_time(self.clock.now())
        try:
            before, after = self.store.update(playbook.source, playbook.id,
                                              lambda p: p.with_changes(status=status, updated=now))
        except PlaybookStoreError as exc:
            return Outcome(False, f"playbook {playbook.id!r} was not changed: {exc}")
        self.emit(PlaybookStatusChanged(after.id, before.status, after.status))
        skill = f"; it is offered as the skill playbook-{after.id}" if status == ACTIVE else ""
        return Outcome(True, f"playbook {after.id!r} is now {status} (was {before.status}){skill}", after)

    # --- the /playbook command ------------------------------------------------------------------

    async def command(self, args: str) -> PlaybookReply:
        """Run ``/playbook ARGS`` for the user; the reply is what the app shows."""
        words = args.split()
        verb = words[0].lower() if words else "list"
        target = words[1] if len(words) > 1 else ""
        if verb == "gates":
            return PlaybookReply(GATES_LATER)
        if verb in ("list", "stats") and len(words) == 1 or not words:
            library = await asyncio.to_thread(self.load, for_model=False)
            self._warn(library)
            lines = views.list_lines(library) if verb == "list" else views.stats_lines(library)
            return PlaybookReply(f"Playbooks ({len(library.playbooks)})" if verb == "list" else "Playbook stats",
                                 tuple(lines))
        if verb not in ("show", "promote", "deprecate", "draft") or len(words) != 2:
            return PlaybookReply(f"Usage: {USAGE}", level="error")
        if verb == "show":
            found = await asyncio.to_thread(self.find, target, for_model=False)
            if found.playbook is None:
                return PlaybookReply(_sentence(found.message), level="error")
            return PlaybookReply(f"Playbook {found.playbook.id}",
                                 tuple(views.show_lines(found.playbook, self.path_of(found.playbook))))
        if verb == "promote":
            done = await self.promote(target)
        else:
            done = await asyncio.to_thread(self.set_status, target, DEPRECATED if verb == "deprecate" else DRAFT)
        skills = await asyncio.to_thread(self.skill_names) if done.ok else None
        return PlaybookReply(_sentence(done.message), level="info" if done.ok else "warning", skills=skills)

    def skill_names(self) -> tuple[str, ...]:
        """Every skill ``/NAME`` can start, active playbooks included (disk work)."""
        from ljtui.core.skills import load_skills

        return load_skills(self.store.root, self.store.env).names

    def _warn(self, library: Library) -> None:
        for warning in library.warnings:
            self.emit(Notice(warning, "warning"))


def _checked(playbook: Playbook) -> Playbook:
    """A new playbook's fields checked as a file's would be, by writing and reading its front matter."""
    from ljtui.core.playbooks.model import parse_playbook, render_playbook

    parsed, _ = parse_playbook(render_playbook(playbook), playbook.id)
    return parsed.with_changes(source=playbook.source)


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


OFFER_KIND = "playbook_offer"
"""The question after a run worth repeating: keep its procedure as a draft playbook?"""


def offer_request(title: str, sop: Sequence[str], verification: Sequence[str]) -> ApprovalRequest:
    """Ask whether to keep a finished run's procedure as a draft playbook (nothing is saved on Escape)."""
    lines = [f"Title: {title}", "", "SOP:", *(f"  {n}. {step}" for n, step in enumerate(sop, 1))]
    if verification:
        lines += ["", "Verification:", *(f"  $ {command}" for command in verification)]
    lines += ["", "It is saved as a draft: it is offered as a skill only once you promote it (/playbook promote)."]
    return confirm(OFFER_KIND, "Keep this procedure as a draft playbook?", lines, "save a draft playbook",
                   "no, do not keep it", subject=title)


async def offer_draft(service: PlaybookService, title: str, sop: Sequence[str],
                      verification: Sequence[str] = ()) -> Outcome | None:
    """After a successful multi-task run or a passed gate: offer to save a draft; ``None`` when declined."""
    if not sop:
        return None
    decision = await service.ask(offer_request(title, sop, verification))
    if decision.choice != YES:
        return None
    sections = {"SOP": list(sop), "Verification": list(verification),
                "Evidence": ["the delivery gate's checks passed and the change was delivered" if verification
                             else "every task of the plan finished"]}
    done = await asyncio.to_thread(service.save, title, title, sections=sections)
    service.emit(Notice(done.message, "info" if done.ok else "warning"))
    return done
