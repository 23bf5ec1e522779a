"""The playbook tools (PB-3): save a draft, search, read, ask to promote, and report how one went.

They work through the session's :class:`~ljtui.core.playbooks.service.PlaybookService`
(the context's ``playbooks``, or one built for the call's repository, asking
through the session's permission questions). The model sees the
repository's playbooks only when the user trusts the repository; it can
save drafts, but only the user makes a playbook active.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ljtui.core.agent.tools.base import failed, int_arg, text_arg
from ljtui.core.playbooks import model as M
from ljtui.core.playbooks.service import PlaybookService
from ljtui.core.tools import Tool, ToolContext, ToolError, ToolResult
from ljtui.core.agent.tools.specs.playbooks import (
    MAX_RESULTS, PLAYBOOK_FEEDBACK, PLAYBOOK_GET, PLAYBOOK_PROMOTE, PLAYBOOK_SAVE, PLAYBOOK_SEARCH,
)

DEFAULT_RESULTS = 5
MAX_QUERY_CHARS = 500
MAX_ITEMS = M.MAX_SOP_STEPS
"""Most items in one list argument (a section's bullet points)."""
MAX_ITEM_CHARS = M.MAX_STEP_CHARS
LIST_SECTIONS = {"preconditions": "Preconditions", "sop": "SOP", "pitfalls": "Pitfalls",
                 "verification": "Verification", "evidence": "Evidence"}
"""``playbook_save`` arguments that become body sections, each a list of items."""




def service_for(ctx: ToolContext) -> PlaybookService:
    """The session's playbook service, or one for the call's repository asking through its permissions."""
    found = ctx.services.playbooks
    if isinstance(found, PlaybookService):
        return found
    permissions = ctx.services.permissions
    ask = permissions.ask if permissions is not None else None
    return PlaybookService(ctx.root, ctx.emit, ask)


def strings_arg(args: dict[str, Any], name: str) -> list[str]:
    """An optional list of short strings, each checked like a text argument."""
    value = args.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise ToolError(f"argument '{name}' must be a list of at most {MAX_ITEMS} strings")
    return [text_arg({name: item}, name, max_chars=MAX_ITEM_CHARS) or "" for item in value]


def _id(args: dict[str, Any]) -> str:
    return text_arg(args, "id", empty_ok=False, max_chars=M.MAX_TITLE_CHARS) or ""


async def playbook_save(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    title = text_arg(args, "title", empty_ok=False, max_chars=M.MAX_TITLE_CHARS) or ""
    when = text_arg(args, "when_to_use", max_chars=M.MAX_WHEN_CHARS) or ""
    scope = text_arg(args, "scope", required=False) or M.PROJECT
    sections = {section: strings_arg(args, name) for name, section in LIST_SECTIONS.items()}
    sections["When to use"] = when
    tags = strings_arg(args, "tags")
    done = await asyncio.to_thread(service_for(ctx).save, title, when, tags=tags, sections=sections, scope=scope)
    if not done.ok or done.playbook is None:
        return failed(done.message)
    return ToolResult(True, done.message, f"saved draft playbook {done.playbook.id}")


async def playbook_search(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    query = text_arg(args, "query", max_chars=MAX_QUERY_CHARS) or ""
    tags = strings_arg(args, "tags")
    drafts = args.get("include_drafts", False)
    if not isinstance(drafts, bool):
        raise ToolError("argument 'include_drafts' must be true or false")
    limit = int_arg(args, "limit", minimum=1, maximum=MAX_RESULTS) or DEFAULT_RESULTS
    statuses = (M.ACTIVE, M.DRAFT) if drafts else (M.ACTIVE,)
    hits, library = await asyncio.to_thread(service_for(ctx).search, query, tags, for_model=True,
                                            statuses=statuses, limit=limit)
    hidden = (f"\n({library.hidden} repository playbook(s) are not offered: the user has not trusted this "
              "repository.)" if library.hidden else "")
    if not hits:
        return ToolResult(True, f"no playbook matches.{hidden}", "no playbook matches")
    lines = [f"{hit.score:.2f}  {hit.playbook.id}  [{hit.playbook.status}, {hit.playbook.stats.ok} ok, "
             f"{hit.playbook.stats.fail} fail]  {hit.playbook.title} — when: {hit.playbook.when_to_use or '-'}"
             for hit in hits]
    text = "\n".join(lines) + "\nRead one with playbook_get; after using it, report with playbook_feedback." + hidden
    return ToolResult(True, text, f"{len(hits)} playbook(s) found")


async def playbook_get(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    service = service_for(ctx)
    found = await asyncio.to_thread(service.find, _id(args), for_model=True)
    playbook = found.playbook
    if playbook is None:
        return failed(found.message)
    s = playbook.stats
    head = [f"id: {playbook.id}", f"title: {playbook.title}", f"status: {playbook.status}",
            f"when to use: {playbook.when_to_use or '-'}", f"tags: {', '.join(playbook.tags) or '-'}",
            f"record: {s.uses} uses, {s.ok} ok, {s.fail} fail", f"file: {service.path_of(playbook)}"]
    if playbook.status != M.ACTIVE:
        head.append(f"This playbook is {playbook.status}: not proven; check each step before relying on it.")
    return ToolResult(True, "\n".join(head) + "\n\n" + playbook.body.strip(), f"playbook {playbook.id}")


async def playbook_promote(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    done = await service_for(ctx).promote(_id(args), for_model=True)
    if not done.ok:
        return failed(done.message)
    return ToolResult(True, done.message, done.message.splitlines()[0][:160])


async def playbook_feedback(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    outcome = text_arg(args, "outcome", max_chars=8) or ""
    done = await asyncio.to_thread(service_for(ctx).feedback, _id(args), outcome, for_model=True)
    if not done.ok:
        return failed(done.message)
    return ToolResult(True, done.message, done.message[:160])


TOOLS = (Tool(PLAYBOOK_SAVE, playbook_save), Tool(PLAYBOOK_SEARCH, playbook_search), Tool(PLAYBOOK_GET, playbook_get),
         Tool(PLAYBOOK_PROMOTE, playbook_promote), Tool(PLAYBOOK_FEEDBACK, playbook_feedback))


def notes() -> dict[str, str]:
    """What docs/tools.md adds to each playbook tool: who is asked, what it reaches."""
    from ljtui.core.playbooks.search import MAX_KEYWORDS

    trust = "the repository's playbooks only when the user trusts the repository"
    return {
        "playbook_save": "Does not ask (it writes only a new draft, `.agent/playbooks/<id>.md` or the user's "
                         f"library). At most {MAX_ITEMS} items per section; a title with no ASCII letter gets the "
                         "id `pb-` + 8 hex characters.",
        "playbook_search": f"Does not ask. Sees {trust}. At most {MAX_RESULTS} results and {MAX_KEYWORDS} "
                           "keywords; CJK text is matched by character bigrams.",
        "playbook_get": f"Does not ask. Sees {trust}.",
        "playbook_promote": "Asks: the dialog shows the playbook's title, file, when-to-use and SOP; Enter promotes, "
                            "Escape keeps it. Headless, the answer is no unless `--yes`.",
        "playbook_feedback": "Does not ask. Updates the playbook's stats; an active playbook is demoted (to draft "
                             "or deprecated) when its record calls for it, shown as a notice and a "
                             "`playbook_demoted` event.",
    }
