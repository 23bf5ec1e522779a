"""The session's hooks: the one door every service fires an event through.

:meth:`SessionHooks.fire` finds the hooks of an event whose matcher takes its subject (the user's, and a
repository's while it is trusted), runs them side by side in the session's sandbox and layer
(:mod:`ljtui.core.hooks.runner`), reports each as ``hook_started`` / ``hook_finished``, says a failed one to
the user, and returns what they answered together (:class:`~ljtui.core.hooks.verdict.HookOutcome`). What the
caller does with a block, a permission or context is the caller's: a hook never decides more than its event
lets it (docs/hooks.md).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ljtui.core.event_types import HookFinished, HookStarted, Notice
from ljtui.core.hooks.last_runs import LastRuns, as_verdict, hook_id
from ljtui.core.hooks.spec import EVENTS, USER_SOURCE, Hook, HookSet, matches, parse_hooks, read_repo_hooks
from ljtui.core.hooks.verdict import BLOCKED, ERROR, OK, TIMED_OUT, HookOutcome, Verdict, verdict_of
from ljtui.core.secrets import redact

if TYPE_CHECKING:
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.events import Event
    from ljtui.core.gitguard.guard import GitSettingsGuard
    from ljtui.core.session_state import SessionSettings

NO_OUTCOME = HookOutcome()
MAX_INPUT_CHARS = 200_000
"""Longest text of one field of a hook's input (a tool's output, a diff); the rest is cut, saying so."""
LAYER_SECRETS = ("the repository's secret files could not be listed, so no hook runs in the layer "
                 "(they would be readable)")


@dataclass(frozen=True)
class HookRow:
    """One hook as ``/hooks`` and ``ljtui hooks list`` show it, with its last result (``None``: not run yet)."""

    hook: Hook
    last: Verdict | None


class SessionHooks:
    """Every hook of one session.

    Args:
        settings: the configuration in force (the user's ``hooks``, the secrets hooks never get).
        root: the repository.
        sandbox: where hooks run (``None``: nowhere: no hook runs).
        emit: reports hooks as events.
        trusted: whether the repository is trusted now (read in a thread on each event; default: the user's trust
            store, which must also hold the very bytes of the hook files read).
        session_id: the session's id, and ``transcript``: its log file, for the hooks' input.
        git_guard: watches git's executable settings around hooks that run on the tree.
        runs: where each hook's last result is kept for ``ljtui hooks list`` (default: the user's state dir).
        now: the wall clock, for those records.
    """

    def __init__(self, settings: SessionSettings, root: Path, sandbox: CommandSandbox | None,
                 emit: Callable[[Event], None], *, trusted: Callable[[], bool] | None = None,
                 session_id: Callable[[], str | None] = lambda: None,
                 transcript: Callable[[], Path | None] = lambda: None,
                 git_guard: GitSettingsGuard | None = None, runs: LastRuns | None = None,
                 now: Callable[[], float] = time.time) -> None:
        self._settings = settings
        self._runs = runs if runs is not None else LastRuns.for_env()
        self._now = now
        self._root = root
        self._sandbox = sandbox
        self._emit = emit
        self._trusted = trusted
        self._session_id = session_id
        self._transcript = transcript
        self._git_guard = git_guard
        self._last: dict[str, Verdict] = {}
        self._said: set[str] = set()

    @property
    def stop_continues(self) -> int:
        """Times ``Stop`` hooks may make one turn go on."""
        return self._settings.config.hooks.stop_continues

    def user_hooks(self) -> HookSet:
        """The hooks of the user's config."""
        config = self._settings.config.hooks
        document = {f.name: getattr(config, f.name) for f in fields(config) if f.name in EVENTS}
        return parse_hooks({k: v for k, v in document.items() if v}, USER_SOURCE, user=True)

    def all_hooks(self) -> tuple[HookSet, HookSet, bool]:
        """The user's hooks, the repository's, and whether the repository's run (it is trusted). Disk work."""
        repo = read_repo_hooks(self._root)
        return self.user_hooks(), repo, self._trusts(repo)

    def rows(self) -> tuple[list[HookRow], list[str]]:
        """Every hook with its last result, and what the user should know (a repository not trusted, problems).
        Disk work: call from a thread."""
        user, repo, trusted = self.all_hooks()
        notes = [*user.problems, *repo.problems]
        if not self._settings.config.hooks.enabled:
            notes.insert(0, "hooks are off (hooks.enabled: false in your config): none runs")
        if repo.hooks and not trusted:
            notes.append(f"{len(repo.hooks)} repository hook(s) do not run: this repository is not trusted (or its "
                         "hooks changed since); `ljtui trust` lists them and asks")
        kept = self._runs.of(self._root)
        notes.extend(self._runs.warnings)
        rows = [HookRow(h, self._last.get(h.key) or _kept(h, kept)) for h in (*user.hooks, *repo.hooks)]
        return rows, notes

    def _trusts(self, repo: HookSet) -> bool:
        """Whether the repository's hooks, as read, may run: it is trusted, with these very files."""
        if self._trusted is not None:
            return self._trusted()
        from ljtui.core.trust import TrustStore

        return TrustStore.for_env().trusts(self._root, repo.files)

    def listing(self) -> list[str]:
        """What ``/hooks`` shows (:func:`row_lines` of :meth:`rows`). Disk work: call from a thread."""
        return row_lines(*self.rows())

    def _matching(self, event: str, subject: str) -> list[Hook]:
        if not self._settings.config.hooks.enabled:
            return []
        user, repo = self.user_hooks(), read_repo_hooks(self._root)
        for line in (*user.problems, *repo.problems):
            if line not in self._said:
                self._said.add(line)
                self._emit(Notice(f"Hooks: {line}", "warning"))
        found = [*user.hooks, *(repo.hooks if repo.hooks and self._trusts(repo) else ())]
        return [h for h in found if h.event == event and matches(h, subject)]

    async def fire(self, event: str, payload: dict[str, Any], subject: str = "",
                   cancelled: asyncio.Event | None = None) -> HookOutcome:
        """Run ``event``'s hooks whose matcher takes ``subject`` with ``payload`` (the event's own fields) as
        input; what they answered together (nothing runs, and nothing is answered, without a matching hook)."""
        if self._sandbox is None:
            return NO_OUTCOME
        hooks = await asyncio.to_thread(self._matching, event, subject)
        if not hooks:
            return NO_OUTCOME
        text = json.dumps(self._input(event, payload), ensure_ascii=False, default=str)
        data = redact(text, self._settings.secrets).encode("utf-8", "replace")
        groups = [[h for h in hooks if not h.network], [h for h in hooks if h.network]]
        verdicts: list[Verdict] = []
        for group in filter(None, groups):
            for hook in group:
                self._emit(HookStarted(event, hook.name, hook.source, subject))
            verdicts += await self._run(group, data, cancelled)
        for verdict in verdicts:
            self._last[verdict.hook.key] = verdict
            self._report(verdict)
        await asyncio.to_thread(self._keep, verdicts)
        return HookOutcome(tuple(verdicts))

    def _keep(self, verdicts: list[Verdict]) -> None:
        try:
            for verdict in verdicts:
                self._runs.record(self._root, verdict, self._now())
        except OSError as exc:
            line = f"Hooks: their last results cannot be kept in {self._runs.path}: {exc.strerror or exc}"
            if line not in self._said:
                self._said.add(line)
                self._emit(Notice(line, "warning"))

    def _input(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        transcript = self._transcript()
        return {"session_id": self._session_id() or "", "transcript_path": str(transcript) if transcript else "",
                "cwd": str(self._root), "hook_event_name": event, "permission_mode": "default",
                **{key: _bounded(value) for key, value in payload.items()}}

    async def _run(self, group: list[Hook], data: bytes, cancelled: asyncio.Event | None) -> list[Verdict]:
        from ljtui.core.gitguard.guard import watched
        from ljtui.core.hooks.runner import HookRun, run_group
        from ljtui.core.layer.service import held_for

        sandbox = self._sandbox
        assert sandbox is not None
        network = group[0].network
        confinement, refusal = await asyncio.to_thread(self._confinement, network)
        if confinement is None:
            return [verdict_of(HookRun(h, None, error=refusal)) for h in group]
        env = sandbox.environment(self._settings.secrets, {"CLAUDE_PROJECT_DIR": str(self._root),
                                                           "LJTUI_PROJECT_DIR": str(self._root)})
        try:
            async with watched(None if confinement.layered else self._git_guard, f"the {group[0].event} hooks"), \
                    held_for(sandbox.layer, confinement):
                runs = await run_group(group, [data] * len(group), root=self._root, confinement=confinement,
                                       tmp_dir=sandbox.tmp_dir, env=env, cancelled=cancelled)
        except OSError as exc:
            return [verdict_of(HookRun(h, None, error=exc.strerror or str(exc))) for h in group]
        return [verdict_of(run) for run in runs]

    def _confinement(self, network: bool) -> tuple[Any, str]:
        """The sandbox a group of hooks runs in, or ``(None, why not)``: in the layer where there is one, the network
        off; a group your config gave the network sees the repository as it is in your tree, read-only (never the
        layer's unreviewed files, which the model may have written), and writes only its temp dir."""
        from ljtui.core.confine.rules import Rules
        from ljtui.core.confine.session import LAYER_LABEL, REPO_LABEL

        sandbox = self._sandbox
        assert sandbox is not None
        if network:
            rules = sandbox.rules(self._root, network=True)
            kept = tuple(p for p in rules.places if p.label not in (REPO_LABEL, LAYER_LABEL))
            return sandbox.confinement(Rules(kept, True, rules.network_enforced)), ""
        layered = sandbox.layered_at(self._root)
        rules = sandbox.rules(self._root, network=False, layered=True)
        hidden = sandbox.hidden_secrets() if layered else ()
        if hidden is None:
            return None, LAYER_SECRETS
        return sandbox.confinement(rules, layered=layered, hidden=hidden), ""

    def _report(self, verdict: Verdict) -> None:
        hook = verdict.hook
        self._emit(HookFinished(hook.event, hook.name, hook.source, verdict.outcome, verdict.exit_code,
                                verdict.reason if verdict.outcome != OK else "", round(verdict.duration, 3)))
        if verdict.outcome in (ERROR, TIMED_OUT):
            self._emit(Notice(f"Hook `{hook.name}` ({hook.event}, {hook.source}) {verdict.outcome}: "
                              f"{verdict.reason}", "warning"))
        if verdict.message:
            self._emit(Notice(f"Hook `{hook.name}` says: {verdict.message}"))


def row_lines(rows: list[HookRow], notes: list[str]) -> list[str]:
    """What ``/hooks`` and ``ljtui hooks list`` show: each hook, where it comes from and its last result, then
    the notes (text from files: the caller shows it as plain text)."""
    lines = []
    for row in rows:
        hook = row.hook
        on = f"{hook.event} [{hook.matcher}]" if hook.matcher else hook.event
        network = " · network" if hook.network else ""
        lines.append(f"{on} · {hook.source}{network} · timeout {hook.timeout:g} s · {hook.command.strip()[:200]}")
        last = row.last
        if last is None:
            lines.append("    last: not run yet")
        else:
            code = f" (exit {last.exit_code})" if last.exit_code is not None else ""
            why = f": {last.reason.splitlines()[0][:160]}" if last.reason else ""
            lines.append(f"    last: {last.outcome}{code} in {last.duration:.2f} s{why}")
    if not rows:
        lines.append("No hooks. Add them under `hooks:` in your config, or commit .agent/hooks.json (docs/hooks.md).")
    return [*lines, *notes]


def _kept(hook: Hook, kept: dict[str, dict[str, Any]]) -> Verdict | None:
    entry = kept.get(hook_id(hook))
    return as_verdict(hook, entry) if entry is not None else None


def _bounded(value: Any) -> Any:
    """``value`` with every text in it cut at :data:`MAX_INPUT_CHARS`."""
    if isinstance(value, str) and len(value) > MAX_INPUT_CHARS:
        return f"{value[:MAX_INPUT_CHARS]}\n[… {len(value) - MAX_INPUT_CHARS:,} characters cut]"
    if isinstance(value, dict):
        return {key: _bounded(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_bounded(item) for item in value]
    return value



__all__ = ["BLOCKED", "NO_OUTCOME", "HookRow", "SessionHooks", "row_lines"]
