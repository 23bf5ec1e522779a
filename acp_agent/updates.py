"""Engine events as ACP ``session/update`` notifications, sent in the order they happened.

The engine reports to a sink that is called synchronously, sometimes from a worker thread (a resumed session
is read in one). :class:`UpdateSink` turns each event into updates (:class:`Translator`) and queues them; one
task sends them, so a client sees them in order, and :meth:`UpdateSink.flush` lets a permission request or a
prompt's answer wait until everything before it is sent.

What a client is shown:

* every piece of text with its control characters shown, never acted on (a client may be a terminal);
* the model's words as ``agent_message_chunk``, each new message of a prompt's answer (after tool calls, or a
  task's turn) a paragraph apart from the text before it, so two messages never run together; notices,
  retries, task and gate lines as ``agent_thought_chunk`` (warnings and errors as message text, so they are
  read);
* each tool call as ``tool_call`` with its kind, its title, the file it touches as a location and, for
  ``write_file`` and ``edit_file``, the diff; its output as it streams, and its end as ``tool_call_update``;
* a task plan as ``plan`` entries, sent whole again on each change of a task's status and on every replan.
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

from acp import (
    plan_entry, start_tool_call, text_block, tool_content, tool_diff_content, update_agent_message_text,
    update_agent_thought_text, update_plan, update_tool_call, update_user_message_text,
)
from acp.schema import ToolCallLocation

from ljtui.core.display import shown
from ljtui.core.events import (
    Event, ModelCallRetried, ModelCallStarted, Notice, SandboxChecked, SessionResumed, TokenDelta, ToolCallFinished,
    ToolCallStarted, ToolOutput, TurnFailed, TurnFinished, TurnStarted,
)
from ljtui.core.layer.scan import LayerEntry
from ljtui.core.tasks import events as T

Send = Callable[[Any], Coroutine[Any, Any, None]]
"""Sends one update to the client (``session_update`` for this session)."""

KINDS = {
    "read_file": "read", "list_files": "read", "get_outline": "read", "playbook_get": "read",
    "grep_files": "search", "find_symbol": "search", "playbook_search": "search",
    "write_file": "edit", "edit_file": "edit", "apply_patch": "edit", "create_directory": "edit",
    "bash": "execute", "web_fetch": "fetch",
    "update_task_plan": "think", "complete_task": "think",
}
"""The ACP tool kind of each of ljtui's tools (any other, MCP tools included, is ``other``)."""
DIFF_TOOLS = ("write_file", "edit_file")
"""The tools whose call carries the diff of the file they write."""
SUBJECT_KEYS = ("path", "command", "pattern", "query", "url", "name", "symbol")
"""The argument that names what a call acts on, for its title, first found first."""
TITLE_CHARS = 160
OUTPUT_CHARS = 16_000
"""A call's output shown while it runs: its last characters (the model gets the whole, bounded, result)."""
DIFF_FILE_BYTES = 1 << 20
"""A file larger than this is not read for a diff (the call is still shown, without one)."""
PLAN_STATUS = {"pending": "pending", "running": "in_progress", "done": "completed", "skipped": "completed",
               "failed": "completed", "replanned": "completed"}
"""ACP has three plan statuses; a failed, skipped or replanned task is completed and says which it was."""


def tool_kind(name: str) -> str:
    return KINDS.get(name, "other")


def call_title(name: str, arguments: dict[str, Any]) -> str:
    """``name: subject`` on one line, its controls shown, not acted on."""
    subject = next((arguments[k] for k in SUBJECT_KEYS if isinstance(arguments.get(k), str)), "")
    title = f"{name}: {subject}" if subject else name
    title = shown(title, exact=True, one_line=True)
    return title if len(title) <= TITLE_CHARS else title[:TITLE_CHARS - 1] + "…"


def shown_values(value: Any) -> Any:
    """A call's arguments with the controls of every string in them shown."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {shown(str(k)): shown_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shown_values(v) for v in value]
    return value


def inside(root: Path, relative: object) -> Path | None:
    """``root / relative`` when that names a place inside ``root`` (no ``..`` out of it), else ``None``."""
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        return None
    path = Path(os.path.normpath(root / relative))
    return path if path == root or root in path.parents else None


def layer_diffs(root: Path, entries: Iterable[LayerEntry]) -> list[Any]:
    """Each text entry of the layer's net change as an ACP diff of its file (a move as its removal and its
    creation; a removal as the file's text going to nothing)."""
    def text(data: bytes | None) -> str | None:
        return data.decode("utf-8", "replace") if data is not None else None

    diffs = []
    for entry in entries:
        before, after = text(entry.before.data), text(entry.after.data)
        if entry.moved_from:
            diffs.append(tool_diff_content(str(root / entry.moved_from), "", before))
            before = None
        diffs.append(tool_diff_content(str(root / entry.path), after or "", before))
    return diffs


def read_text(path: Path) -> str | None:
    """A regular file's text, read without following a link; ``None`` when it is missing, a link, large or
    not UTF-8."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > DIFF_FILE_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read(DIFF_FILE_BYTES + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


class Translator:
    """What to send for each event of one session."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._before: dict[str, tuple[Path, str | None]] = {}
        """For a call that writes a file: the file, and its text before the call (``None``: it did not exist)."""
        self._output: dict[str, str] = {}
        self._streamed = False
        """The current turn's words came as deltas (else the finished turn's text is sent whole)."""
        self._said = False
        """Message text was sent for the prompt being answered."""
        self._apart = False
        """The next message text starts a new message: it is sent a paragraph apart from what was said."""
        self._plan: dict[int, tuple[str, str]] = {}
        """The task plan shown: each task's description and ljtui status, in order."""

    def new_prompt(self) -> None:
        """A prompt's answer begins: its first words start the client's message, with nothing before them."""
        self._said = self._apart = False

    def updates(self, event: Event) -> list[Any]:
        match event:
            case TurnStarted():
                self._streamed = False
                self._apart = self._said
                return []
            case ModelCallStarted():
                self._apart = self._said
                return []
            case TokenDelta(text=text):
                self._streamed = True
                return [self._words(text)] if text else []
            case TurnFinished(text=text):
                return [] if self._streamed or not text else [self._words(text)]
            case TurnFailed(message=message):
                return [update_agent_message_text(f"\n\n{shown(message)}\n")]
            case ToolCallStarted():
                return [self._started(event)]
            case ToolOutput(call_id=call_id, text=text):
                out = (self._output.get(call_id, "") + shown(text))[-OUTPUT_CHARS:]
                self._output[call_id] = out
                return [update_tool_call(call_id, status="in_progress", content=[tool_content(text_block(out))])]
            case ToolCallFinished():
                return [self._finished(event)]
            case Notice(message=message, level=level):
                if level in ("warning", "error"):
                    return [update_agent_message_text(f"\n\n{level.capitalize()}: {shown(message)}\n")]
                return [update_agent_thought_text(shown(message) + "\n")]
            case ModelCallRetried(message=message, attempt=attempt, max_retries=most, delay=delay):
                return [update_agent_thought_text(f"{shown(message)}; retry {attempt}/{most} in {delay:g}s\n")]
            case SessionResumed():
                return self._replayed(event)
            case SandboxChecked(confined=False, why=why):
                return [update_agent_message_text(f"\n\nWarning: unsandboxed: {shown(why)}. Every command asks "
                                                  "first and runs with your full rights (`ljtui doctor` says why).\n")]
            case SandboxChecked(backend=backend, allows=allows):
                return [update_agent_thought_text(f"Commands run in the {backend} sandbox: {shown(allows)}\n")]
        return self._plan_updates(event) + self._lines(event)

    def _words(self, text: str) -> Any:
        """The model's ``text`` as message text; the first of a new message a paragraph after the last one."""
        apart, self._apart, self._said = self._apart, False, True
        return update_agent_message_text(("\n\n" if apart else "") + shown(text))

    def _started(self, event: ToolCallStarted) -> Any:
        path = inside(self.root, event.input.get("path"))
        content = None
        if event.name in DIFF_TOOLS and path is not None:
            before = read_text(path)
            self._before[event.call_id] = (path, before)
            after = _proposed(event.name, event.input, before)
            if after is not None:
                content = [tool_diff_content(str(path), after, before)]
        return start_tool_call(event.call_id, call_title(event.name, event.input), kind=tool_kind(event.name),
                               status="pending", content=content, raw_input=shown_values(event.input),
                               locations=[ToolCallLocation(path=str(path))] if path is not None else None)

    def _finished(self, event: ToolCallFinished) -> Any:
        self._output.pop(event.call_id, None)
        status = "completed" if event.ok else "failed"
        parts = [tool_content(text_block(shown(event.summary)))]
        if event.output:
            parts.append(tool_content(text_block(shown(event.output))))
        if event.call_id in self._before:
            path, before = self._before.pop(event.call_id)
            after = read_text(path) if event.ok else None
            if after is not None and after != before:  # what was written, which a rebase may have moved
                parts.insert(0, tool_diff_content(str(path), after, before))
        return update_tool_call(event.call_id, status=status, content=parts, raw_output=shown(event.summary))

    def _replayed(self, event: SessionResumed) -> list[Any]:
        """The saved conversation, as the client shows it again (``session/load``): each message of an answer a
        paragraph apart, as it was sent, a failed call as failed, a notice as it was sent."""
        updates: list[Any] = []
        for number, entry in enumerate(event.transcript):
            if entry.role == "user":
                self.new_prompt()
                updates.append(update_user_message_text(shown(entry.text)))
            elif entry.role == "assistant":
                self._apart = self._said
                updates.append(self._words(entry.text))
            elif entry.role == "notice":
                updates.extend(self.updates(Notice(entry.text, entry.level)))
            else:
                updates.append(start_tool_call(f"replayed-{number}", call_title(entry.text, entry.arguments),
                                               kind=tool_kind(entry.text), status="failed" if entry.ok is False
                                               else "completed", raw_input=shown_values(entry.arguments)))
        self.new_prompt()
        return updates

    def _plan_updates(self, event: Event) -> list[Any]:
        plan = self._plan
        match event:
            case T.TaskPlanProposed(tasks=tasks):
                plan.clear()
                plan.update((t.id, (t.description, t.status.value)) for t in tasks)
            case T.TaskStarted(task_id=task_id, description=description):
                plan[task_id] = (description, "running")
            case T.TaskFinished(task_id=task_id, description=description, status=status):
                plan[task_id] = (description, status.value)
            case T.TaskPlanUpdated(added=added, removed=removed, changed=changed):
                for task in removed:
                    plan.pop(task.id, None)
                for change in changed:
                    plan[change.after.id] = (change.after.description, plan.get(change.after.id, ("", "pending"))[1])
                for task in added:
                    plan[task.id] = (task.description, task.status.value)
            case _:
                return []
        return [update_plan(_entry(description, status) for description, status in plan.values())]

    @staticmethod
    def _lines(event: Event) -> list[Any]:
        from ljtui.cli.cmd_gates import gate_event_line
        from ljtui.cli.cmd_run import task_event_line

        line = task_event_line(event) or gate_event_line(event)
        return [update_agent_thought_text(shown(line) + "\n")] if line else []


def _entry(description: str, status: str) -> Any:
    label = description if status in ("pending", "running", "done") else f"{description} ({status})"
    return plan_entry(label, status=PLAN_STATUS.get(status, "pending"))  # type: ignore[arg-type]


def _proposed(tool: str, arguments: dict[str, Any], before: str | None) -> str | None:
    """The file's text as the call would leave it, when that can be told from its arguments."""
    if tool == "write_file":
        content = arguments.get("content")
        return content if isinstance(content, str) else None
    old, new = arguments.get("old"), arguments.get("new")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if not old:
        return new if before is None else None
    return before.replace(old, new, 1) if before is not None and before.count(old) == 1 else None


class UpdateSink:
    """The engine's sink for one ACP session: events become updates, sent in order by one task.

    Updates of events that come before :meth:`start` (while the engine is built, before the session has its
    id) wait in the queue and go first."""

    def __init__(self, root: Path, *, also: Callable[[Event], None] | None = None) -> None:
        self.translator = Translator(root)
        self._also = also
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None

    def start(self, send: Send) -> None:
        """Send every update, those queued so far first, with ``send``."""
        self._sender = self._loop.create_task(self._run(send))

    def emit(self, event: Event) -> None:
        if self._also is not None:
            self._also(event)
        if threading.get_ident() == self._thread:
            self._put(event)
        else:
            self._loop.call_soon_threadsafe(self._put, event)

    def _put(self, event: Event) -> None:
        for update in self.translator.updates(event):
            self._queue.put_nowait(update)

    async def send_now(self, update: Any) -> None:
        """Queue ``update`` behind everything before it and wait until it is sent."""
        self._queue.put_nowait(update)
        await self.flush()

    async def flush(self) -> None:
        """Wait until every update queued so far is sent (or failed to send)."""
        await asyncio.sleep(0)  # events emitted from a thread just now are queued first
        await self._queue.join()

    async def _run(self, send: Send) -> None:
        while True:
            update = await self._queue.get()
            try:
                await send(update)
            except Exception:  # the client went away or refused one update: the session goes on
                pass
            finally:
                self._queue.task_done()

    async def aclose(self) -> None:
        if self._sender is not None:
            await self.flush()
            self._sender.cancel()
