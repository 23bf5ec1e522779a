"""Who may write a file or run a command (AGENT-3, SAFE-1, SAFE-3).

``write_file``, ``edit_file``, ``create_directory`` and ``bash`` ask before
they act. The answer comes from, in order: a ``PreToolUse`` hook's ``allow``
(only where a session grant could cover the call: :data:`HOOK`), a grant the
user gave for this session ("allow this tool for the session"), the
allow-lists (the user's config; a repository's config only once it is
trusted), the headless policy (``--allow write,bash`` / ``--yes``), and
otherwise the user, through the Approver port. Every decision is reported as ``permission_requested`` /
``permission_decided`` events, policy ones too.

Commands carry :class:`CommandFacts`, worked out by the ``bash`` tool from
a real parse of the line and from the session's sandbox:

* a session grant or a run grant covers only a *plain* line (simple
  commands joined by ``;``, ``&&``, ``||`` or pipes, with literal words and
  no substitution, redirection to a file, background job, subshell …) in
  which nothing looks dangerous; an allow-list covers a line only when
  every simple command in it matches an entry;
* a command that looks dangerous is never covered: it is asked every time
  and only "allow once" (with or without the network) is offered;
* in the repository's layer (network off, ``agent.ask_commands: layered``),
  a sandboxed command runs without a dialog, dangerous-looking or not: it
  can change nothing but the layer, which the user reviews before anything
  reaches the tree, and it reads nothing of the home folder but toolchains;
* without a sandbox on this system nothing covers a command: it is asked
  every time, "allow once" only, and the dialog says "unsandboxed";
* inside the sandbox the dialog also offers the network for this command
  (``n``) or for the session (``N``), and running this one command without
  the sandbox (``u``). Those are only ever a human's answers: a policy, an
  allow-list or ``--yes`` never widens the sandbox.

The calls of one model reply run in order, and the chat loop names them
(:meth:`Permissions.reply_started`). Once the user denies one of them (Escape,
or no terminal to ask), every later call of that reply that would ask is
denied without a dialog, and the model is told it was denied with the
earlier call; calls that need no question, or that a grant or a policy
covers, still run. One Escape thus answers a reply of a thousand commands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.asking import Ask
from ljtui.core.display import shown
from ljtui.core.events import Event, PermissionDecided, PermissionRequested

WRITE_TOOLS = frozenset({"write_file", "edit_file", "apply_patch", "create_directory"})
"""Tools that change files."""
COMMAND_TOOLS = frozenset({"bash"})
"""Tools that run a command."""
MEMORY_TOOLS = frozenset({"save_memory"})
"""Tools that write into every later session's prompt."""
ASKING_TOOLS = WRITE_TOOLS | COMMAND_TOOLS | MEMORY_TOOLS
"""Tools that ask before they act."""
POLICY_NAMES = {"write": WRITE_TOOLS, "bash": COMMAND_TOOLS, "memory": MEMORY_TOOLS}
"""``--allow`` names and the tools each one lets through."""
MCP_POLICY = "mcp"
"""``--allow mcp``: every MCP server's tools (``--allow mcp__SERVER__TOOL``: that one)."""
MCP_TOOL_PREFIX = "mcp__"

ONCE, SESSION, POLICY, RUN, REPLY, LAYER, HOOK = "once", "session", "policy", "run", "reply", "layer", "hook"
"""Scopes of a decision; ``reply``: denied with an earlier call of the same reply, unasked; ``layer``: a command
that can change nothing but the layer, run unasked; ``hook``: a ``PreToolUse`` hook said ``allow`` for a call the
user could have allowed for the session."""
HOOK_ALLOW = "allow"
"""What a ``PreToolUse`` hook may say to skip a call's dialog (its ``deny`` never reaches here: the call is not
run; its ``ask`` was asked before the call)."""
NETWORK, NETWORK_SESSION, UNCONFINED = "network", "network_session", "unconfined"
"""Dialog answers that widen the sandbox: network for this command, for the session; no sandbox this once."""
ALLOW, DENY = "allow", "deny"



@dataclass(frozen=True)
class Permission:
    """The answer to one request: allowed or not, by which scope, and why not.

    Attributes:
        network: the command gets the network (a command's answer only).
        unconfined: the user chose to run this one command without the sandbox.
        network_for_session: the user turned the network on for every later command of the session too.
    """

    allowed: bool
    scope: str
    reason: str = ""
    network: bool = False
    unconfined: bool = False
    network_for_session: bool = False


@dataclass(frozen=True)
class CommandFacts:
    """What the permission decision of a command depends on besides its text.

    Attributes:
        confined: the command runs in a sandbox; without one nothing but a human's "once" lets it run.
        plain: the line is plain simple commands (see the module docstring), so a session grant may cover it.
        listed: the allow-list entries that cover every simple command of the line, or ``None``.
        network: the network is already on for it (the user's config or a session grant).
        network_enforced: the sandbox can turn the network off at all (else no network choice is offered).
        why_asked: why no grant covers it, for the dialog (``"a redirection to out.txt"`` …), or ``""``.
    """

    confined: bool
    plain: bool
    listed: tuple[str, ...] | None = None
    network: bool = False
    network_enforced: bool = True
    why_asked: str = ""
    layered: bool = False
    """It runs in the repository's layer, network off, and the user's ``agent.ask_commands`` is ``layered``: it
    can change nothing but the layer, which the user reviews, so it runs without a dialog."""


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

    def allows_command(self, facts: CommandFacts) -> bool:
        """Whether the policy lets a non-dangerous command with ``facts`` run without asking."""
        if not facts.confined:
            return False
        if COMMAND_TOOLS & self.headless:
            return True
        return facts.plain and (bool(COMMAND_TOOLS & self.allow_tools) or facts.listed is not None)

    @classmethod
    def from_names(cls, names: Iterable[str]) -> frozenset[str]:
        """The tools ``--allow`` names let through (``write``, ``bash``, or tool names)."""
        tools: set[str] = set()
        for name in names:
            name = name.strip()
            if name == MCP_POLICY or name.startswith(MCP_TOOL_PREFIX):
                tools.add(name)
            else:
                tools |= POLICY_NAMES.get(name, {name} & ASKING_TOOLS)
        return frozenset(tools)

    def allows(self, tool: str) -> bool:
        """Whether the policy lets ``tool`` (a write tool) act without asking."""
        mcp = tool.startswith(MCP_TOOL_PREFIX) and MCP_POLICY in self.headless
        return mcp or tool in self.headless or tool in self.allow_tools


@dataclass
class ReplyCalls:
    """The calls of one model reply that may ask, and the tool the user denied among them, once they did."""

    call_ids: frozenset[str]
    denied: str = ""


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
    replies: dict[str, ReplyCalls] = field(default_factory=dict)
    """The reply each agent is running the calls of (agents run side by side, each its calls in order)."""
    hook_says: dict[str, str] = field(default_factory=dict)
    """What ``PreToolUse`` hooks said of a running call's permission, by call id: :data:`HOOK_ALLOW` skips the
    dialog only where a session grant could have (never for a dangerous or unsandboxed command, nor the
    network)."""

    def reply_started(self, agent: str, call_ids: Iterable[str]) -> None:
        """``agent``'s calls ``call_ids``, of one model reply, run next: a denial of one denies the rest."""
        self.replies[agent] = ReplyCalls(frozenset(call_ids))

    async def request(self, *, tool: str, subject: str, title: str, lines: Iterable[str], turn: int, call_id: str,
                      agent: str, danger: str | None = None, diff_path: str | None = None,
                      command: CommandFacts | None = None) -> Permission:
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
            command: for a command, what its grants depend on (required for :data:`COMMAND_TOOLS`).
        """
        self.emit(PermissionRequested(turn, call_id, tool, subject, agent))
        if agent.startswith("task "):  # tasks run side by side: the question says which one asks
            title = f"{agent.capitalize()}: {title}"
        reply = self.replies.get(agent)
        reply = reply if reply is not None and call_id in reply.call_ids else None
        hook = self.hook_says.get(call_id)
        if tool in COMMAND_TOOLS:
            permission = await self._decide_command(tool, subject, title, tuple(lines), danger,
                                                    command or CommandFacts(confined=False, plain=False), reply, hook)
        else:
            permission = await self._decide(tool, subject, title, tuple(lines), danger, diff_path, reply, hook)
        if reply is not None and not permission.allowed and not reply.denied:
            reply.denied = tool
        self.emit(PermissionDecided(turn, call_id, tool, ALLOW if permission.allowed else DENY, permission.scope,
                                    agent))
        return permission

    async def _decide(self, tool: str, subject: str, title: str, lines: tuple[str, ...],
                      danger: str | None, diff_path: str | None = None, reply: ReplyCalls | None = None,
                      hook: str | None = None) -> Permission:
        if danger is None and hook == HOOK_ALLOW:
            return Permission(True, HOOK)
        if danger is None:
            if tool in self.granted:
                return Permission(True, SESSION)
            if tool in self.run_grants:
                return Permission(True, RUN)
            if self.policy.allows(tool):
                return Permission(True, POLICY)
        if reply is not None and reply.denied:
            return Permission(False, REPLY, denied_with_reply(tool, reply.denied))
        decision = await self.ask(permission_request(tool, subject, title, lines, danger, diff_path))
        if decision.choice == SESSION and danger is None:
            self.granted.add(tool)
            return Permission(True, SESSION)
        if decision.choice in (ONCE, SESSION):
            return Permission(True, ONCE)
        return Permission(False, ONCE, denied_reason(tool, danger))

    async def _decide_command(self, tool: str, subject: str, title: str, lines: tuple[str, ...],
                              danger: str | None, facts: CommandFacts, reply: ReplyCalls | None = None,
                              hook: str | None = None) -> Permission:
        network = facts.network and facts.confined
        if hook == HOOK_ALLOW and danger is None and facts.confined and facts.plain:
            return Permission(True, HOOK, network=network)
        if facts.layered and facts.confined and not facts.network:
            return Permission(True, LAYER)
        if danger is None and facts.confined:
            if facts.plain and (tool in self.granted or tool in self.run_grants):
                return Permission(True, SESSION if tool in self.granted else RUN, network=network)
            if self.policy.allows_command(facts):
                return Permission(True, POLICY, network=network)
        if reply is not None and reply.denied:
            return Permission(False, REPLY, denied_with_reply(tool, reply.denied))
        decision = await self.ask(command_request(tool, subject, title, lines, danger, facts))
        choice = decision.choice
        if choice == DENY or choice not in (ONCE, SESSION, NETWORK, NETWORK_SESSION, UNCONFINED):
            return Permission(False, ONCE, denied_reason(tool, danger))
        if choice == SESSION and danger is None and facts.confined and facts.plain:
            self.granted.add(tool)
            return Permission(True, SESSION, network=network)
        return Permission(True, ONCE, network=network or choice in (NETWORK, NETWORK_SESSION),
                          unconfined=choice == UNCONFINED and danger is None and facts.confined,
                          network_for_session=choice == NETWORK_SESSION)


def command_request(tool: str, subject: str, title: str, lines: tuple[str, ...], danger: str | None,
                    facts: CommandFacts) -> ApprovalRequest:
    """The dialog of one command: what the sandbox allows, and the answers the facts permit."""
    deny = Choice(DENY, "deny (the model is told)", "escape")
    danger = shown(danger, exact=True) if danger else danger  # it quotes the command's own words
    why_asked = shown(facts.why_asked, exact=True)
    head: list[str] = [f"Dangerous: {danger}."] if danger else []
    if not facts.confined:
        head.append("Unsandboxed: no sandbox confines commands on this system; this one runs with your full rights "
                    "(`ljtui doctor` says why).")
        return ApprovalRequest("permission", title, (*head, "", *lines),
                               (Choice(ONCE, "allow once, unsandboxed", "enter"), deny), DENY, f"{tool}: {subject}")
    choices = [Choice(ONCE, "allow once", "enter")]
    if facts.network_enforced and not facts.network:
        choices += [Choice(NETWORK, "once with network", "n"), Choice(NETWORK_SESSION, "network for the session", "N")]
    if danger is None and facts.plain:
        choices.append(Choice(SESSION, f"allow {tool} for this session", "s"))
    if danger is None:
        choices.append(Choice(UNCONFINED, "once without the sandbox", "u"))
    choices.append(deny)
    if danger:
        head = [f"Dangerous: {danger}. It can only be allowed once.", ""]
    elif not facts.plain and why_asked:
        head = [f"Asked every time: {why_asked}.", ""]
    return ApprovalRequest("permission", title, (*head, *lines), tuple(choices), DENY, f"{tool}: {subject}")


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


def denied_with_reply(tool: str, earlier: str) -> str:
    """What the model is told about a call not asked because the user denied an earlier one of its reply."""
    return (f"denied with the earlier call of this reply: the user denied that {earlier} call, so this {tool} call "
            "was not asked and did not run. Do not retry the reply's calls unchanged; explain what you wanted to "
            "do, or find another way.")
