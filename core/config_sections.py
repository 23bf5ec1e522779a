"""The sections of the configuration: one dataclass per YAML section, and the scope of each key.

Each field carries its scope and numeric range as metadata (:func:`opt`); :mod:`ljtui.core.config`
composes the sections into its ``Config`` and re-exports every name here.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Callable


REPO = "repo"
"""Scope of a key any layer may set, an untrusted repository's file included."""
TRUSTED = "trusted"
"""Scope of a key a repository's file may set only once the user trusts the repository."""
USER = "user"
"""Scope of a key only the user's config file, the environment or a flag may set."""


def opt(default: Any = dataclasses.MISSING, *, factory: Callable[[], Any] | None = None, scope: str = TRUSTED,
        minimum: float | None = None, maximum: float | None = None, repr: bool = True) -> Any:
    """A config field with its scope and numeric range."""
    meta = {"scope": scope, "min": minimum, "max": maximum}
    if factory is not None:
        return field(default_factory=factory, metadata=meta, repr=repr)
    return field(default=default, metadata=meta, repr=repr)


@dataclass
class ProviderConfig:
    """Which model answers, and how to reach it."""

    name: str = opt("anthropic")
    """Provider: ``anthropic``, ``openai-compatible`` or ``scripted``."""
    model: str = opt("claude-sonnet-5-5", scope=REPO)
    """Model name sent to the provider."""
    base_url: str | None = opt(None)
    """Endpoint override (``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL``)."""
    api_key: str | None = opt(None, scope=USER, repr=False)
    """API key; prefer the provider's environment variable. Never shown."""
    script: str | None = opt(None)
    """Path of the YAML script replayed by the ``scripted`` provider."""
    chunk_delay: float = opt(0.0, minimum=0, maximum=10)
    """Seconds between streamed chunks of the ``scripted`` provider."""
    max_tokens: int = opt(8192, scope=REPO, minimum=1, maximum=1_000_000)
    """Upper bound on tokens the model may write in one reply."""
    context_window: int | None = opt(None, scope=REPO, minimum=512, maximum=100_000_000)
    """The model's context window in tokens; unset: published limits or what the server says
    (``ljtui doctor`` shows which)."""
    images: bool | None = opt(None, scope=REPO)
    """Whether the model takes images (``@shot.png``); unset: known by the provider and model family."""
    timeout: float = opt(60.0, minimum=0.001, maximum=3600)
    """Seconds a model call may wait for its first byte, or between two bytes, before it fails.
    A silent server is retried once at most."""
    call_timeout: float = opt(600.0, minimum=0.001, maximum=86_400)
    """Seconds one whole model call may take, however steadily the server trickles data."""
    max_retries: int = opt(4, minimum=0, maximum=20)
    """Retries of a failed call (429, 529, 5xx, connection errors, overloaded mid-reply)."""
    retry_delay: float = opt(0.5, minimum=0, maximum=600)
    """Seconds before the first retry; each further retry waits twice as long."""
    retry_max_delay: float = opt(8.0, minimum=0, maximum=3600)
    """Longest computed wait between retries (a server's ``retry-after`` is honoured)."""
    prices: dict[str, dict[str, float]] = opt(factory=dict, scope=REPO)
    """USD per million tokens by model name, for cost estimates, e.g.
    ``{claude-sonnet-4-5: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}}``.
    ``cache_read`` and ``cache_write`` default to the ``input`` price."""


@dataclass
class UIConfig:
    """How the full-screen app looks."""

    theme: str = opt("dark", scope=REPO)
    """Theme name: a bundled theme or a YAML file in the user themes dir."""
    keymap: dict[str, str] = opt(factory=dict, scope=USER)
    """Key overrides by action id, e.g. ``{review.apply: "ctrl+a"}`` (F1 lists the ids)."""
    notify: str = opt("auto", scope=USER)
    """How you are told that a turn ended or a question waits while the terminal is not focused: ``bell``,
    ``osc9`` or ``osc777`` (the terminal's desktop notification), ``off``, or ``auto``: ``osc9`` in terminals
    known to show it (iTerm2, WezTerm, ghostty, Windows Terminal), else the bell."""


NOTIFY_CHOICES: tuple[str, ...] = ("auto", "bell", "osc9", "osc777", "off")
"""Values of ``ui.notify``."""


SANDBOX_BACKENDS: tuple[str, ...] = ("auto", "landlock", "bubblewrap", "none")
"""Values of ``agent.sandbox.backend``."""


@dataclass
class SandboxConfig:
    """How the commands ljtui runs for a model are confined (SAFE-1); the ``agent.sandbox`` mapping.

    Only the user's own config file may set it: a repository can never widen the sandbox.
    """

    backend: str = "auto"
    """``auto`` (Landlock, else bubblewrap, else none), ``landlock``, ``bubblewrap`` or ``none`` (no sandbox:
    every command asks, and no grant covers one)."""
    network: bool = False
    """Commands may connect and listen on the network (TCP) without asking for it each time."""
    write_paths: list[str] = field(default_factory=list)
    """Further folders commands may write below, absolute or ``~/…``, e.g. ``["~/.cache/pip"]``."""
    read_paths: list[str] = field(default_factory=list)
    """Further places commands in the layer may read (they see of the home folder only the toolchains, and no
    socket of the machine), absolute or ``~/…``, e.g. ``["~/.config/gh", "/run/docker.sock"]``."""


def sandbox_problem(sandbox: SandboxConfig) -> str | None:
    """Why an ``agent.sandbox`` mapping is unusable, or None."""
    if sandbox.backend not in SANDBOX_BACKENDS:
        return f"backend is {sandbox.backend!r}, expected one of: {', '.join(SANDBOX_BACKENDS)}"
    for key in ("write_paths", "read_paths"):
        relative = [p for p in getattr(sandbox, key) if not os.path.isabs(os.path.expanduser(p))]
        if relative:
            return f"{key} must be absolute or start with ~/ (got {relative[0]!r})"
    return None


@dataclass
class AgentConfig:
    """Limits of the conversation loop."""

    max_iterations: int = opt(10, scope=REPO, minimum=1, maximum=1000)
    """Model calls per user message (and per task of a task plan) before the loop stops (AGENT-1)."""
    max_parallel_tasks: int = opt(4, scope=REPO, minimum=1, maximum=16)
    """Tasks of an approved task plan that run at the same time at most (TASK-4)."""
    routing: str = opt("model", scope=REPO)
    """Where a plain message goes: ``model`` (one short model call decides chat, a task plan or a skill;
    TASK-1) or ``chat`` (always the conversation agent, no extra call)."""
    router_model: str = opt("", scope=REPO)
    """Model of that routing call, e.g. a small fast one; empty: the session's model (``provider.model``)."""
    edit_tools: str = opt("auto", scope=REPO)
    """How the agent edits part of a file: ``replace`` (``edit_file``, exact string replacement), ``patch``
    (``apply_patch``, Codex patches), or ``auto``: ``apply_patch`` for OpenAI's models (gpt-*, o-series, codex),
    ``edit_file`` for every other one."""
    allow_tools: list[str] = opt(factory=list)
    """Tools that write or run commands without asking, e.g. ``[edit_file]`` (AGENT-3)."""
    allow_commands: list[str] = opt(factory=list)
    """Command globs ``bash`` runs without asking, e.g. ``["pytest*", "git status"]``; never a dangerous one."""
    bash_timeout: float = opt(120.0, minimum=1, maximum=3600)
    """Seconds a ``bash`` command may run before it and its children are killed."""
    sandbox: SandboxConfig = opt(factory=SandboxConfig, scope=USER)
    """The commands' sandbox: ``{backend, network, write_paths}`` (see :class:`SandboxConfig`)."""
    layer: str = opt("auto", scope=USER)
    """The copy-on-write layer (LAYER-1): ``auto``/``on`` — every write and every command's effect lands in a layer
    over the repository, reviewed before it reaches your files, where this system can mount one; ``off`` — changes
    are written to your files directly."""
    ask_commands: str = opt("layered", scope=USER)
    """``layered``: a sandboxed command in the layer runs without a dialog (network, leaving the sandbox and direct
    mode still ask); ``always``: every command asks, as without a layer."""
    ask_writes: bool = opt(False, scope=USER)
    """In the layer, ask before each write of the file tools too (the review at the end of the turn replaces it)."""
    pass_env: list[str] = opt(factory=list, scope=USER)
    """Credential variables commands get anyway, e.g. ``[GITHUB_TOKEN]`` (never a provider key)."""
    max_tool_calls_per_reply: int = opt(25, scope=REPO, minimum=1, maximum=1000)
    """Tool calls one model reply may make; the calls past it are refused, and the model is told (SAFE-6)."""
    compress_at_tokens: int = opt(60_000, scope=REPO, minimum=2_000, maximum=10_000_000)
    """Estimated prompt tokens above which older messages are summarised (AGENT-6); a smaller window lowers it
    (``compress_at_fraction``)."""
    compress_at_fraction: float = opt(0.7, scope=REPO, minimum=0.1, maximum=0.95)
    """The share of the model's context window (``ljtui doctor`` shows it) above which older messages are
    summarised, when that is less than ``compress_at_tokens``."""
    web_search_url: str | None = opt(None)
    """A SearXNG-style search endpoint (``https://host/search``) for ``web_search``; none: unavailable."""
    web_timeout: float = opt(20.0, minimum=1, maximum=300)
    """Seconds a ``web_fetch`` or ``web_search`` may take."""


@dataclass
class PlannerConfig:
    """Limits of the read-only planner."""

    prompt_budget_tokens: int = opt(100_000, scope=REPO, minimum=1000, maximum=10_000_000)
    """Estimated tokens one planner prompt may reach; older tool results are elided above it."""
    soft_deadline: float = opt(120.0, minimum=1, maximum=86_400)
    """Seconds after which a planner run starts no new repair round (EDIT-14); the user is told."""
    hard_deadline: float = opt(150.0, minimum=1, maximum=86_400)
    """Seconds after which a planner run is stopped and reported as aborted (EDIT-14)."""


@dataclass
class SecurityConfig:
    """What agents may read. Only the user's own config file can widen it."""

    allow_secret_files: list[str] = opt(factory=list, scope=USER)
    """Glob patterns (repo-relative) of secret-looking files agents may read anyway,
    e.g. ``[".env.example"]``."""



def _hook_list() -> Any:
    return opt(factory=list, scope=USER)


@dataclass
class HooksConfig:
    """The user's hooks, by event, in Claude Code's shape (``[{"matcher": "Bash", "hooks": [{"type": "command",
    "command": "…", "timeout": 60}]}]``; docs/hooks.md). Only the user's own config holds them: a repository's come
    from ``.agent/hooks.json`` and ``.claude/settings.json`` once it is trusted."""

    SessionStart: list[Any] = _hook_list()
    UserPromptSubmit: list[Any] = _hook_list()
    PreToolUse: list[Any] = _hook_list()
    PostToolUse: list[Any] = _hook_list()
    Notification: list[Any] = _hook_list()
    Stop: list[Any] = _hook_list()
    PreCompact: list[Any] = _hook_list()
    SessionEnd: list[Any] = _hook_list()
    TaskFinished: list[Any] = _hook_list()
    Replanned: list[Any] = _hook_list()
    GateChecked: list[Any] = _hook_list()
    BeforeApply: list[Any] = _hook_list()
    AfterApply: list[Any] = _hook_list()
    stop_continues: int = opt(3, scope=USER, minimum=0, maximum=50)
    """Times ``Stop`` hooks may make one turn go on before ljtui ends it anyway."""
    enabled: bool = opt(True, scope=USER)
    """Run hooks at all (``false``: none runs, the user's or a repository's)."""
