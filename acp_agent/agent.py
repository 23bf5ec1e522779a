"""The ACP agent: sessions, prompts, cancel and load, each through the engine's façade.

* ``initialize`` says what ljtui offers: ``session/load`` (its saved sessions), prompts of text and of
  embedded text resources or resource links (images and audio are refused by not being offered), MCP servers
  the client passes, over stdio or HTTP.
* ``session/new`` makes an engine in the repository that holds ``cwd`` (the nearest ``.git`` above it, or
  ``cwd`` itself when there is none); ``/``, the home folder and a folder holding ljtui's own config or state
  are refused with an error that says why (:mod:`ljtui.core.session_root`), before anything starts.
  The repository's own settings count only once it is trusted, as in the app: before the first prompt runs,
  an untrusted repository whose settings would change something is asked about (``session/request_permission``),
  then the MCP servers start (the client's, the user's, and a trusted repository's ``.mcp.json``).
* ``session/prompt`` sends the text as a message typed in the app (the engine routes it to the agent or makes
  it a task plan) and streams what happens as ``session/update``; it answers once every update is sent.
* ``session/cancel`` cancels the running prompt: its model call and its commands end (the sandbox's process
  group is killed), and the prompt answers ``cancelled``.
* ``session/load`` resumes a saved session (``ljtui sessions`` lists them) and replays it as updates.

The client's ``fs/read_text_file``, ``fs/write_text_file`` and terminals are not used, even when offered:
every write goes through ljtui's transaction (checked against the bytes it read, journalled, undoable, never
half-written), which a client's write would bypass; reads come from the disk the transaction checks against
(an editor's unsaved buffer would make the model edit text that is not in the file); and commands run in
ljtui's sandbox (no network, writes only inside the repository), which a client's terminal is not.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from acp import (
    PROTOCOL_VERSION, Client, InitializeResponse, LoadSessionResponse, NewSessionResponse, PromptResponse,
    RequestError, start_tool_call, text_block, tool_content, update_tool_call,
)
from acp.schema import (
    AgentCapabilities, EmbeddedResourceContentBlock, HttpMcpServer, Implementation, McpCapabilities,
    McpServerStdio, PromptCapabilities, ResourceContentBlock, TextContentBlock, TextResourceContents,
)

from ljtui.acp_agent.approver import AcpApprover
from ljtui.acp_agent.updates import UpdateSink, layer_diffs
from ljtui.core.edits.paths import find_repo_root
from ljtui.core.engine import Engine
from ljtui.core.events import Event, Notice
from ljtui.core.mcp.config import McpServerConfig, server_problem
from ljtui.core.session_root import UnsafeRoot, place_refusal
from ljtui.core.startup import Startup, prepare

VERSION = "0.1.0"
RESOURCE_NOT_FOUND = -32002
"""ACP's error code for a session (or file) that does not exist."""
EMBEDDED_CHARS = 200_000
"""Text of one embedded resource sent to the model, at most."""


@dataclass
class Session:
    """One ACP session: its engine, its updates, and the prompt running in it."""

    engine: Engine
    updates: UpdateSink
    startup: Startup
    prepared: bool = False
    """The trust question and the MCP servers were dealt with (before the first prompt)."""
    running: asyncio.Task[Any] | None = None
    """The prompt's work, while it runs (``session/cancel`` cancels it)."""
    cancelled: bool = False
    """The client cancelled the prompt running or last run."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    layer_calls: int = 0
    """The layer's changes sent as tool calls so far (each call's id counts them)."""
    resumed: bool = False
    """The session continues a saved one (``session/load``): its ``SessionStart`` hooks hear ``resume``."""


class LjtuiAgent:
    """ljtui behind ACP; one instance per connection."""

    def __init__(self, env: dict[str, str], overrides: dict[str, Any] | None = None, *,
                 only: Path | None = None) -> None:
        self.env = env
        self.only = only
        """The one repository sessions may open in (``--repo``), or ``None``: any."""
        self.overrides = dict(overrides or {})
        self.client: Client | None = None
        self.sessions: dict[str, Session] = {}

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=False)),
            agent_info=Implementation(name="ljtui", title="ljtui", version=VERSION),
            auth_methods=[])

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None  # the model's key is in ljtui's own configuration; there is nothing to log in to

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> NewSessionResponse:
        session = await self._open(cwd, mcp_servers or [])
        return NewSessionResponse(session_id=session.engine.session_log.id)

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **kwargs: Any) -> LoadSessionResponse:
        if session_id in self.sessions:  # two engines would append to one session file
            raise RequestError.invalid_params({"sessionId": f"session {session_id!r} is open in this connection"})
        await self._open(cwd, mcp_servers or [], resume=session_id)
        return LoadSessionResponse()

    async def _open(self, cwd: str, servers: list[Any], resume: str | None = None) -> Session:
        root = _repository(cwd, self.env)
        if self.only is not None and root != self.only:
            raise RequestError.invalid_params({"cwd": f"{cwd!r} is not in {str(self.only)!r}, the only repository "
                                                      "this agent opens sessions in (--repo)"})
        startup = await asyncio.to_thread(prepare, root, self.env, self.overrides)
        config = startup.config
        extra, problems = _client_servers(servers)
        if extra:
            config = replace(config, mcp=replace(config.mcp, servers={**extra, **config.mcp.servers}))
        client = self._client()
        approver: AcpApprover | None = None
        refused: list[str] = []

        def noted(event: Event) -> None:
            if approver is not None:
                approver.note(event)
            if isinstance(event, Notice) and event.level == "error":
                refused.append(event.message)

        updates = UpdateSink(root, also=noted)
        engine = await asyncio.to_thread(lambda: Engine(config, updates, repo_root=root))
        approver = AcpApprover(engine.session_log.id, client.request_permission, updates)
        engine.approver = approver
        if resume is not None and not await asyncio.to_thread(engine.resume, resume):
            await engine.aclose()  # nothing of it was sent: the client knows no session by its id
            raise RequestError(RESOURCE_NOT_FOUND, refused[-1] if refused else f"no session {resume!r}",
                               {"sessionId": resume})
        approver.session_id = engine.session_log.id
        updates.start(lambda u: client.session_update(session_id=engine.session_log.id, update=u))
        if startup.provider_problem:
            problems.append(startup.provider_problem)
        for problem in (*startup.warnings, *problems):
            engine.sink.emit(Notice(problem, "warning"))
        session = Session(engine, updates, startup, resumed=resume is not None)
        self.sessions[engine.session_log.id] = session
        await updates.flush()
        return session

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        text = prompt_text(prompt)
        if not text.strip():
            raise RequestError.invalid_params({"prompt": "the prompt has no text"})
        async with session.lock:  # one prompt at a time per session, as the protocol has it
            session.updates.translator.new_prompt()
            work = asyncio.create_task(self._run(session, text))
            session.running, session.cancelled = work, False
            try:
                await work
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():  # this request itself ends (the connection closes)
                    work.cancel()
                    raise
            except Exception as exc:  # a fault in ljtui: said through the session's sink, which redacts it
                session.engine.sink.emit(Notice(f"Internal error: {type(exc).__name__}: {exc}", "error"))
                await session.updates.flush()
                raise RequestError.internal_error({"reason": "ljtui failed; the session's last update says why"})
            finally:
                session.running = None
            await session.updates.flush()
            return PromptResponse(stop_reason="cancelled" if session.cancelled else "end_turn")

    async def _run(self, session: Session, text: str) -> None:
        engine = session.engine
        if not session.prepared:
            session.prepared = True
            await asyncio.to_thread(engine.check_sandbox)
            if session.startup.untrusted:
                root, env, overrides = engine.repo_root, self.env, self.overrides
                await engine.trust_repository(session.startup.untrusted, env,
                                              lambda: prepare(root, env, overrides).config)
            await engine.start_mcp()
            await engine.start_hooks("resume" if session.resumed else "startup")
        await engine.handle_message(text)
        await take_layer(session)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.running is not None:
            session.cancelled = True
            session.running.cancel()

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> None:
        raise RequestError.invalid_params({"modeId": "ljtui has no session modes"})

    async def close(self) -> None:
        """Stop every session's work and servers (the connection ended)."""
        for session in list(self.sessions.values()):
            if session.running is not None:
                session.running.cancel()  # its commands are killed as it unwinds
                await asyncio.gather(session.running, return_exceptions=True)
            await session.updates.aclose()
            await session.engine.aclose()
        self.sessions.clear()

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": f"no session {session_id!r} in this connection"})
        return session

    def _client(self) -> Client:
        if self.client is None:
            raise RequestError.internal_error({"reason": "no client connection"})
        return self.client


def _repository(cwd: str, env: Mapping[str, str]) -> Path:
    """The repository holding ``cwd``, or an error the client reads: not an absolute path, not a folder, or a
    folder ljtui does not work in (``/``, the home folder, one holding ljtui's own config or state)."""
    if not os.path.isabs(cwd):
        raise RequestError.invalid_params({"cwd": f"must be an absolute path, got {cwd!r}"})
    path = Path(cwd)
    if not path.is_dir():
        raise RequestError.invalid_params({"cwd": f"{cwd!r} is not a directory"})
    root = find_repo_root(path)
    refusal = place_refusal(root, env)
    if refusal is not None:
        raise RequestError.invalid_params({"cwd": UnsafeRoot(refusal, cwd).message})
    return root


def _client_servers(servers: list[Any]) -> tuple[dict[str, McpServerConfig], list[str]]:
    """The MCP servers the client passed, as the user's own (the client is the user's editor, configured by
    them), and why any was left out."""
    made: dict[str, McpServerConfig] = {}
    problems: list[str] = []
    for server in servers:
        if isinstance(server, McpServerStdio):
            config = McpServerConfig(command=server.command, args=list(server.args),
                                     env={v.name: v.value for v in server.env})
        elif isinstance(server, HttpMcpServer):
            config = McpServerConfig(url=server.url, headers={h.name: h.value for h in server.headers})
        else:
            problems.append(f"MCP server {getattr(server, 'name', '?')!r} from the client: only stdio and HTTP "
                            "servers are supported; it is left out")
            continue
        problem = server_problem(server.name, config)
        if problem is not None:
            problems.append(f"MCP server from the client left out: {problem}")
        else:
            made[server.name] = config
    return made, problems


def prompt_text(blocks: list[Any]) -> str:
    """The prompt as the model reads it: its text, each embedded text resource after it fenced under its uri,
    and each resource link named."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, EmbeddedResourceContentBlock) and isinstance(block.resource, TextResourceContents):
            body = block.resource.text[:EMBEDDED_CHARS]
            parts.append(f"\n{block.resource.uri}:\n````\n{body}\n````\n")
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"[{block.name}]({block.uri})")
    return "\n".join(parts)


async def take_layer(session: Session) -> None:
    """After a turn in the layer: send its net change as one ``edit`` tool call carrying a diff per file, and ask
    the editor once, on that call, whether to apply it (the apply's own question, naming every file and block);
    a no leaves it in the layer (`ljtui layer diff` shows it)."""
    from ljtui.core.layer.review import ORIGIN

    engine = session.engine
    if engine.review.origin != ORIGIN:
        return
    found = await asyncio.to_thread(engine.layer_review.summary)
    session.layer_calls += 1
    call_id = f"ljtui-layer-{session.layer_calls}"
    diffs = layer_diffs(engine.repo_root, found.reviewed) if found is not None else []
    count = len(found.reviewed) if found is not None else 0
    await session.updates.send_now(start_tool_call(call_id, f"the layer: {count} file(s) changed", kind="edit",
                                                   status="pending", content=diffs or None))
    if isinstance(engine.approver, AcpApprover):
        engine.approver.apply_on(call_id, diffs)
    await engine.review.apply()
    applied = engine.review.origin != ORIGIN
    said = ("applied to your files (`ljtui undo` reverts it)" if applied
            else "not applied: it stays in the layer (`ljtui layer diff` shows it, `ljtui layer apply` takes it)")
    await session.updates.send_now(update_tool_call(call_id, status="completed" if applied else "failed",
                                                    content=[*diffs, tool_content(text_block(said))]))
