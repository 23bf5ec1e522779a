"""The ``scripted`` provider: replays model turns from a YAML file (PROV-4).

Script format::

    chunk_delay: 0.02          # optional, seconds between streamed chunks
    turns:
      - text: "Let me look at the file."
        tool_calls:
          - {name: read_file, input: {path: README.md}}
      - text: "Done."
      - cases:                 # what the model says depends on the tool results it got
          - when: {failed: true}
            text: "That was denied: nothing changed."
          - text: "Done."
    agents:                    # optional: turns of other agents, each played in its own order
      decompose:
        - text: '{"tasks": [...]}'
      task 1:
        - text: "Task 1 done."

Each model call plays the next turn of the agent that makes it (the
request's ``agent``; an agent without its own list plays ``turns``), so
agents running concurrently replay deterministically. Text streams word by
word; tool calls are returned for the engine to execute for real. Only the
model's words are recorded in the script. A turn of ``cases`` plays the first
case whose ``when`` the previous tool results meet
(:mod:`ljtui.core.providers.scripted_cases`), so a recording never claims
what the engine did not do.

A routing call (agent ``router``, :mod:`ljtui.core.tasks.route`) of a script
with no ``router`` turns is answered with :data:`DEFAULT_ROUTE`, which sends
the message to chat and reports no token use, so a script written for chat
replays unchanged; a script that tests routing gives ``router`` its own turns.

Every request is first turned into the Messages API body the ``anthropic``
provider would send (:func:`~ljtui.core.providers.anthropic_wire.build_params`)
and checked against the API's rules
(:func:`~ljtui.core.providers.request_rules.anthropic_problems`): one the real
API would refuse is refused here too, with a :class:`ProviderError` of kind
``invalid_request`` naming the problems, before any turn is played.

A script written as JSON may nest deeper than YAML can read, to replay a
model that sends tool-call arguments nested a hundred thousand levels deep:
it is read with every value past :data:`SCRIPT_MAX_DEPTH` levels cut to
``null``. That is still far past the bound on arguments
(:data:`~ljtui.core.providers.arguments.MAX_ARGUMENT_DEPTH`), so the engine
refuses the call as it refuses the model's.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

import yaml

from ljtui.core.events import Usage
from ljtui.core.providers.anthropic_wire import build_params
from ljtui.core.providers.arguments import text_depth_exceeds
from ljtui.core.providers.base import (
    ChatRequest, Delta, ProviderError, StreamEnd, TextDelta, ToolCall, UsageDelta,
)
from ljtui.core.providers.request_rules import anthropic_problems
from ljtui.core.providers.scripted_cases import When, choose, parse_when

CHARS_PER_TOKEN = 4
"""Rough characters per token, for the usage a script reports."""

ROUTER_AGENT = "router"
"""The routing call's agent (:data:`ljtui.core.tasks.route.ROUTER_AGENT`)."""
DEFAULT_ROUTE = '{"route": "chat", "skill": null, "reason": "no router turns in the script"}'
"""The answer to a routing call when the script has no ``router`` turns."""

SCRIPT_MAX_DEPTH = 100
"""Deepest nesting a JSON script is read with; YAML's reader (recursive) handles a few hundred levels."""

_NOT_ID = re.compile(r"[^a-zA-Z0-9_-]")
"""Characters a tool-use id may not hold; left out of the agent's name in the ids a script's calls get."""
_CHUNK = re.compile(r"\S+\s*|\s+")
_JSON_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"|[\[\]{}]|[^"\[\]{}]++|"', re.DOTALL)
"""A JSON string, one bracket, a run of anything else, or a lone quote."""


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ScriptedTurn:
    """One recorded model reply, or (``cases``) the replies it chooses from by the previous tool results."""

    text: str = ""
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    cases: tuple[tuple[When | None, ScriptedTurn], ...] = ()
    """Conditions and their turns, tried in order; ``None``: the default."""


@dataclass
class Script:
    """A parsed script: its turns and streaming pace."""

    path: Path
    turns: list[ScriptedTurn]
    chunk_delay: float | None = None
    agents: dict[str, list[ScriptedTurn]] = field(default_factory=dict)
    """Turns of named agents (``decompose``, ``replanner``, ``task 1`` …)."""


class ScriptError(ProviderError):
    """The script file is missing, unreadable or malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__("script", f"script {path}: {problem}")
        self.path = path


def load_script(path: str | Path) -> Script:
    """Read and check a script file.

    Raises:
        ScriptError: naming the file and what was expected.
    """
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScriptError(path, "file not found") from None
    except IsADirectoryError:
        raise ScriptError(path, "is a directory, expected a YAML file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(path, f"cannot read ({getattr(exc, 'strerror', None) or type(exc).__name__})") from None
    data = _read(path, raw)
    if not isinstance(data, dict) or not isinstance(data.get("turns", []), list):
        raise ScriptError(path, "expected a mapping with a 'turns' list")
    unknown = set(data) - {"turns", "agents", "chunk_delay"}
    if unknown:
        raise ScriptError(path, f"unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    agents = _parse_agents(path, data.get("agents", {}))
    delay = data.get("chunk_delay")
    if delay is not None and (isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0):
        raise ScriptError(path, f"'chunk_delay' must be a number of seconds >= 0, got {delay!r}")
    turns = [_parse_turn(path, i, t) for i, t in enumerate(data.get("turns", []), start=1)]
    if not turns and not agents:
        raise ScriptError(path, "'turns' is empty")
    return Script(path, turns, None if delay is None else float(delay), agents)


def _read(path: Path, raw: str) -> Any:
    """The script's document: a JSON one nested deeper than YAML can read is cut at :data:`SCRIPT_MAX_DEPTH`."""
    if raw.lstrip().startswith("{") and text_depth_exceeds(raw, SCRIPT_MAX_DEPTH):
        try:
            return json.loads(cut_deeper(raw, SCRIPT_MAX_DEPTH))
        except json.JSONDecodeError:
            pass  # not JSON after all: YAML says what is wrong
    try:
        return yaml.safe_load(raw)
    except RecursionError:
        raise ScriptError(path, f"nested too deeply for YAML; write a script nested more than {SCRIPT_MAX_DEPTH} "
                                "levels as JSON") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ScriptError(path, f"{where}invalid YAML ({getattr(exc, 'problem', None) or exc})") from None


def cut_deeper(text: str, limit: int) -> str:
    """The JSON ``text`` with every object or array opened more than ``limit`` levels deep replaced by ``null``."""
    out: list[str] = []
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        opens = token in ("[", "{")
        if opens:
            depth += 1
        if depth <= limit:
            out.append(token)
        elif opens and depth == limit + 1:
            out.append("null")
        if token in ("]", "}"):
            depth -= 1
    return "".join(out)


def _parse_agents(path: Path, raw: Any) -> dict[str, list[ScriptedTurn]]:
    if not isinstance(raw, dict):
        raise ScriptError(path, "'agents' must map agent names to lists of turns")
    agents: dict[str, list[ScriptedTurn]] = {}
    for name, turns in raw.items():
        if not isinstance(name, str) or not isinstance(turns, list) or not turns:
            raise ScriptError(path, f"agent {name!r}: expected a non-empty list of turns")
        agents[name] = [_parse_turn(path, i, t, f"agent {name!r}, ") for i, t in enumerate(turns, start=1)]
    return agents


def _parse_turn(path: Path, n: int, raw: Any, where: str = "", at: str = "") -> ScriptedTurn:
    at = at or f"{where}turn {n}"
    if isinstance(raw, dict) and "cases" in raw:
        return _parse_cases(path, raw, at)
    if not isinstance(raw, dict):
        raise ScriptError(path, f"{at}: expected a mapping with 'text' and/or 'tool_calls'")
    unknown = set(raw) - {"text", "tool_calls"}
    if unknown:
        raise ScriptError(path, f"{at}: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    text = raw.get("text", "")
    if not isinstance(text, str):
        raise ScriptError(path, f"{at}: 'text' must be a string")
    calls_raw = raw.get("tool_calls", []) or []
    if not isinstance(calls_raw, list):
        raise ScriptError(path, f"{at}: 'tool_calls' must be a list")
    calls = []
    for j, c in enumerate(calls_raw, start=1):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise ScriptError(path, f"{at}, tool call {j}: expected {{name: ..., input: {{...}}}}")
        inp = c.get("input", {}) or {}
        if not isinstance(inp, dict):
            raise ScriptError(path, f"{at}, tool call {j}: 'input' must be a mapping")
        calls.append(ScriptedToolCall(c["name"], inp))
    if not text and not calls:
        raise ScriptError(path, f"{at}: has neither 'text' nor 'tool_calls'")
    return ScriptedTurn(text, tuple(calls))


def _parse_cases(path: Path, raw: dict[str, Any], at: str) -> ScriptedTurn:
    """A turn of ``cases``: each case a turn with an optional ``when``; only the last may lack one."""
    if set(raw) != {"cases"}:
        raise ScriptError(path, f"{at}: a turn with 'cases' has no other key")
    cases_raw = raw["cases"]
    if not isinstance(cases_raw, list) or not cases_raw:
        raise ScriptError(path, f"{at}: 'cases' must be a non-empty list of turns")
    cases: list[tuple[When | None, ScriptedTurn]] = []
    for j, case in enumerate(cases_raw, start=1):
        if not isinstance(case, dict):
            raise ScriptError(path, f"{at}, case {j}: expected a mapping")
        if "cases" in case:
            raise ScriptError(path, f"{at}, case {j}: cases do not nest")
        here = f"{at}, case {j}"
        when = None
        if "when" in case:
            when = parse_when(case["when"], lambda problem: ScriptError(path, f"{here}: {problem}"))
        elif j < len(cases_raw):
            raise ScriptError(path, f"{here}: only the last case may have no 'when'")
        body = {k: v for k, v in case.items() if k != "when"}
        cases.append((when, _parse_turn(path, j, body, at=here)))
    return ScriptedTurn(cases=tuple(cases))


@dataclass
class ScriptedClient:
    """A ChatClient that plays a :class:`Script` one turn per call."""

    script: Script
    model: str = "scripted"
    chunk_delay: float = 0.0
    provider: str = "scripted"
    played: int = field(default=0, init=False)
    played_by: dict[str, int] = field(default_factory=dict, init=False)
    """Turns played so far by each agent that has its own list."""
    agents_seen: list[str] = field(default_factory=list, init=False)
    """The ``agent`` of every call made, in order."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[Delta]:
        self.agents_seen.append(request.agent)
        refuse_invalid(request, request.model or self.model)
        own = self.script.agents.get(request.agent)
        if own is None and request.agent == ROUTER_AGENT:
            yield TextDelta(DEFAULT_ROUTE)
            yield StreamEnd("end_turn")
            return
        if own is not None:
            index = self.played_by.get(request.agent, 0)
            if index >= len(own):
                raise ProviderError("script", f"script {self.script.path} has no turn left for agent "
                                              f"{request.agent!r} ({index} played)")
            self.played_by[request.agent] = index + 1
            turn = own[index]
        else:
            if self.played >= len(self.script.turns):
                raise ProviderError(
                    "script",
                    f"script {self.script.path} has no turn left ({self.played} played)",
                )
            turn = self.script.turns[self.played]
            self.played += 1
        if turn.cases:
            number = self.played_by.get(request.agent, self.played)
            turn = choose(turn.cases, request, self.script.path,
                          f"{f'agent {request.agent!r}, ' if own is not None else ''}turn {number}")
        call_prefix = f"call_{_NOT_ID.sub('', request.agent)}_{self.played_by.get(request.agent, self.played)}"
        delay = self.script.chunk_delay if self.script.chunk_delay is not None else self.chunk_delay
        for piece in _CHUNK.findall(turn.text):
            if delay:
                await asyncio.sleep(delay)
            yield TextDelta(piece)
        for k, call in enumerate(turn.tool_calls, start=1):
            yield ToolCall(f"{call_prefix}_{k}" if own is not None else f"call_{self.played}_{k}", call.name,
                           dict(call.input))
        prompt_chars = len(request.system) + sum(len(repr(m.content)) for m in request.messages)
        yield UsageDelta(Usage(prompt_chars // CHARS_PER_TOKEN, max(1, len(turn.text) // CHARS_PER_TOKEN)))
        yield StreamEnd("tool_use" if turn.tool_calls else "end_turn")

    async def aclose(self) -> None:
        return None


def refuse_invalid(request: ChatRequest, model: str) -> None:
    """Refuse ``request`` as the Messages API would, if its wire body breaks the API's rules.

    Raises:
        ProviderError: kind ``invalid_request``, status 400, naming every problem.
    """
    problems = anthropic_problems(build_params(request, model))
    if problems:
        raise ProviderError(
            "invalid_request",
            f"the request breaks the Messages API's rules (HTTP 400 invalid_request_error): {'; '.join(problems)}",
            status=400,
        )
