"""Who may write a file or run a command (AGENT-3).

``write_file``, ``edit_file``, ``create_directory`` and ``bash`` ask before
they act. The answer comes from, in order: a grant the user gave for this
session ("allow this tool for the session"), the allow-lists (the user's
config; a repository's config only once it is trusted), the headless
policy (``--allow write,bash`` / ``--yes``), and otherwise the user, through
the Approver port: allow once, allow for the session, or deny. A command
that matches a dangerous pattern is never allowed for the session nor by an
allow-list: it is asked every time. Every decision is reported as
``permission_requested`` / ``permission_decided`` events, policy ones too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Awaitable, Callable, Iterable

from ljtui.core.approval import ApprovalRequest, Choice, Decision
from ljtui.core.events import Event, PermissionDecided, PermissionRequested

WRITE_TOOLS = frozenset({"write_file", "edit_file", "create_directory"})
"""Tools that change files."""
COMMAND_TOOLS = frozenset({"bash"})
"""Tools that run a command."""
ASKING_TOOLS = WRITE_TOOLS | COMMAND_TOOLS
"""Tools that ask before they act."""
POLICY_NAMES = {"write": WRITE_TOOLS, "bash": COMMAND_TOOLS}
"""``--allow`` names and the tools each one lets through."""

ONCE, SESSION, POLICY, RUN = "once", "session", "policy", "run"
ALLOW, DENY = "allow", "deny"

Ask = Callable[[ApprovalRequest], Awaitable[Decision]]


@dataclass(frozen=True)
class Permission:
    """The answer to one request: allowed or not, by which scope, and why not."""

    allowed: bool
    scope: str
    reason: str = ""


@dataclass
class PermissionPolicy:
    """What is allowed without asking.

    Attributes:
        allow_tools: tools the user allowed in their config (``agent.allow_tools``).
        allow_commands: command globs that run without asking (``agent.allow_commands``),
            e.g. ``"pytest*"``, ``"git status"``; never a dangerous command.
        headless: tools a headless run allows (``--allow write,bash``); a dangerous command is
            still asked (so only ``--yes`` or a terminal lets it run).
    """

    allow_tools: frozenset[str] = frozenset()
    allow_commands: tuple[str, ...] = ()
    headless: frozenset[str] = frozenset()

    @classmethod
    def from_names(cls, names: Iterable[str]) -> frozenset[str]:
        """The tools ``--allow`` names let through (``write``, ``bash``, or tool names)."""
        tools: set[str] = set()
        for name in names:
            tools |= POLICY_NAMES.get(name.strip(), {name.strip()} & ASKING_TOOLS)
        return frozenset(tools)

    def allows(self, tool: str, subject: str) -> bool:
        """Whether the policy lets ``tool`` act on ``subject`` without asking."""
        if tool in self.headless or tool in self.allow_tools:
            return True
        return tool in COMMAND_TOOLS and any(fnmatchcase(subject.strip(), glob) for glob in self.allow_commands)


@dataclass
class Permissions:
    """The permission state of one session."""

    ask: Ask
    emit: Callable[[Event], None]
    policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    granted: set[str] = field(default_factory=set)
    """Tools the user allowed for the rest of the session."""
    run_grants: set[str] = field(default_factory=set)
    """Tools the user allowed for the task plan now running (its approval's "allow writes for this run")."""

    async def request(self, *, tool: str, subject: str, title: str, lines: Iterable[str], turn: int, call_id: str,
                      agent: str, danger: str | None = None, diff_path: str | None = None) -> Permission:
        """Ask whether ``tool`` may act on ``subject`` (a path or a command).

        Args:
            tool: the tool's name.
            subject: what it acts on, shown to the user and matched by allow-lists.
            title: the question, one line.
            lines: what the action will do (a diff, the command), written by the tool.
            turn, call_id, agent: who asks, for the events.
            danger: why the action is dangerous, if it is: then only "allow once" is offered
                and neither a session grant nor an allow-list lets it through.
            diff_path: set when ``lines`` are a unified diff of this file.
        """
        self.emit(PermissionRequested(turn, call_id, tool, subject, agent))
        if agent.startswith("task "):  # tasks run side by side: the question says which one asks
            title = f"{agent.capitalize()}: {title}"
        permission = await self._decide(tool, subject, title, tuple(lines), danger, diff_path)
        self.emit(PermissionDecided(turn, call_id, tool, ALLOW if permission.allowed else DENY, permission.scope,
                                    agent))
        return permission

    async def _decide(self, tool: str, subject: str, title: str, lines: tuple[str, ...],
                      danger: str | None, diff_path: str | None = None) -> Permission:
        if danger is None:
            if tool in self.granted:
                return Permission(True, SESSION)
            if tool in self.run_grants:
                return Permission(True, RUN)
            if self.policy.allows(tool, subject):
                return Permission(True, POLICY)
        decision = await self.ask(permission_request(tool, subject, title, lines, danger, diff_path))
        if decision.choice == SESSION and danger is None:
            self.granted.add(tool)
            return Permission(True, SESSION)
        if decision.choice in (ONCE, SESSION):
            return Permission(True, ONCE)
        return Permission(False, ONCE, denied_reason(tool, danger))


def permission_request(tool: str, subject: str, title: str, lines: tuple[str, ...],
                       danger: str | None, diff_path: str | None = None) -> ApprovalRequest:
    """The dialog of one permission: allow once, for the session (unless dangerous), or deny."""
    choices = [Choice(ONCE, "allow once", "enter")]
    if danger is None:
        choices.append(Choice(SESSION, f"allow {tool} for this session", "s"))
    choices.append(Choice(DENY, "deny (the model is told)", "escape"))
    shown = ((f"Dangerous: {danger}. It can only be allowed once.", "") if danger else ()) + lines
    return ApprovalRequest("permission", title, shown, tuple(choices), DENY, f"{tool}: {subject}",
                           diff_path=None if danger else diff_path)


def denied_reason(tool: str, danger: str | None) -> str:
    """What the model is told when the user says no."""
    why = f" ({danger})" if danger else ""
    return (f"the user denied this {tool} call{why}. Do not retry it unchanged; explain what you wanted to do, "
            "or find another way.")
