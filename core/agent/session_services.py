"""The collaborators a session's tools reach (:class:`~ljtui.core.tools.ToolServices`), built from the
configuration and what the session passes in."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ljtui.core.tools import GateControls, ToolServices

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Ask
    from ljtui.core.config import Config
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.events import Event
    from ljtui.core.gitguard.guard import GitSettingsGuard
    from ljtui.core.layer.commit import ProposedCommit
    from ljtui.core.playbooks.service import PlaybookService
    from ljtui.core.ports import Clock


def session_services(config: Config, root: Path, clock: Clock, ask: Ask, emit: Callable[[Event], None], *,
                     sandbox: CommandSandbox, playbooks: PlaybookService, gates: GateControls,
                     session_id: Callable[[], str | None], git_guard: GitSettingsGuard | None = None,
                     commit: ProposedCommit | None = None) -> ToolServices:
    """Permissions (asking through ``ask``), the writer, the read tools, the outline and the memory of the
    repository at ``root``, with the session's ``sandbox``, ``playbooks``, ``gates``, ``git_guard`` and the commit
    message the model proposes for the layer's change (``commit``)."""
    from ljtui.core.agent.memory import MemoryStore
    from ljtui.core.agent.permissions import PermissionPolicy, Permissions
    from ljtui.core.agent.writer import AgentWriter
    from ljtui.core.outline.repo_outline import RepoOutline
    from ljtui.core.planner.tools import ReadOnlyTools
    from ljtui.core.secret_files import SecretFiles

    agent = config.agent
    policy = PermissionPolicy(frozenset(agent.allow_tools), tuple(agent.allow_commands))
    secrets = SecretFiles.allowing(config.security.allow_secret_files)
    return ToolServices(
        permissions=Permissions(ask, emit, policy), writer=AgentWriter(root, clock, secrets),
        reader=ReadOnlyTools(root, secrets=secrets), sandbox=sandbox, outline=RepoOutline(root, secrets),
        memory=MemoryStore.for_repo(root, clock=clock), playbooks=playbooks, gates=gates, session_id=session_id,
        git_guard=git_guard, commit=commit)


def session_sandbox(config: Config, root: Path) -> CommandSandbox:
    """The sandbox every command of the session at ``root`` runs in, as the configuration asks."""
    from ljtui.core.confine.session import CommandSandbox

    from ljtui.core.layer.service import Layer
    from ljtui.core.secret_files import SecretFiles

    sandbox = config.agent.sandbox
    return CommandSandbox(root, sandbox.backend, write_paths=sandbox.write_paths, network=sandbox.network,
                          pass_env=config.agent.pass_env, layer=Layer(root, config.agent.layer),
                          read_paths=sandbox.read_paths,
                          secrets=SecretFiles.allowing(config.security.allow_secret_files))
