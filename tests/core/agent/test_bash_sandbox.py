"""The bash tool and its sandbox: what grants cover (simple commands, plain lines), the network and
unsandboxed choices a human may make, refusals reported with how to grant them, and the unsandboxed mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.confine.session import CommandSandbox
from ljtui.core.confine.status import NONE, SandboxStatus
from ljtui.core.events import PermissionDecided
from tests.core.agent.helpers import harness
from tests.core.confine.helpers import Listener

ALLOW = ("pytest*", "echo *", "git status")


def unsandboxed(root: Path) -> CommandSandbox:
    status = SandboxStatus(NONE, "no sandbox here (test)")
    return CommandSandbox(root, detect=lambda _setting: status, temp_parent=root.parent)


def scopes(h) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(e.decision, e.scope) for e in h.events if isinstance(e, PermissionDecided)]


@pytest.mark.parametrize("command", [
    "echo hi; touch compound.txt",
    "echo hi && touch compound.txt",
    "echo hi | touch compound.txt",
    "echo hi > compound.txt",
    "echo $(touch compound.txt)",
    "FOO=1 echo hi",
    "echo hi &",
    "(echo hi)",
    "{echo,touch} compound.txt",
])
async def test_an_allow_list_entry_never_covers_more_than_simple_commands_it_matches(tmp_path: Path,
                                                                                     command: str) -> None:
    h = harness(tmp_path, allow_commands=ALLOW)
    result = await h.call(command=command)
    assert not result.ok and "denied" in result.content
    assert len(h.approver.asked) == 1 and not (tmp_path / "compound.txt").exists()


async def test_a_line_of_allowed_simple_commands_runs_without_asking(tmp_path: Path) -> None:
    h = harness(tmp_path, allow_commands=ALLOW)
    result = await h.call(command="echo one && echo two | echo three 2>&1; echo 'a;b' 2>/dev/null")
    assert result.ok, result.content
    assert h.approver.asked == [] and scopes(h) == [("allow", "policy")]


async def test_a_session_grant_covers_plain_lines_only(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["session", "once"])
    assert (await h.call(command="echo one")).ok
    assert (await h.call(command="echo two && echo three")).ok
    assert (await h.call(command="echo four > four.txt")).ok
    assert len(h.approver.asked) == 2
    assert h.approver.asked[1].lines[0] == "Asked every time: a redirection to four.txt."
    assert "session" not in [c.id for c in h.approver.asked[1].choices]
    assert scopes(h) == [("allow", "session"), ("allow", "session"), ("allow", "once")]


async def test_network_is_refused_then_granted_once_then_for_the_session(tmp_path: Path) -> None:
    listener = Listener()
    command = f"cat < /dev/tcp/127.0.0.1/{listener.port}"
    try:
        h = harness(tmp_path, answers=["once", "network", "network_session", "once"])
        refused = await h.call(command=command)
        assert not refused.ok and listener.connections == 0
        assert "sandbox:" in refused.content and "network" in refused.content
        assert (await h.call(command=command)).ok and listener.connections == 1
        assert (await h.call(command=command)).ok and listener.connections == 2
        assert h.sandbox.network_session
        later = await h.call(command=command)
        assert later.ok and listener.connections == 3
        last = h.approver.asked[-1]
        assert len(h.approver.asked) == 4 and "network" not in [c.id for c in last.choices]
        assert last.lines[-1].endswith("network: on · changes are written to your files directly")
    finally:
        listener.close()


async def test_a_write_outside_is_refused_and_reported_with_how_to_grant_it(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    h = harness(repo, answers=["once", "unconfined"])
    unseen = f"python3 -c \"open('{outside}/marker.txt', 'w')\""  # the danger check cannot see this write
    refused = await h.call(command=unseen)
    assert not refused.ok and not (outside / "marker.txt").exists()
    assert f"sandbox: the write to {outside}/marker.txt was refused" in refused.content
    assert "agent.sandbox.write_paths" in refused.content and refused.summary.endswith("sandbox refused?")
    allowed = await h.call(command=unseen)
    assert allowed.ok and (outside / "marker.txt").exists()
    assert "unconfined" in [c.id for c in h.approver.asked[1].choices]
    dangerous = await h.call(command=f"cp /dev/null {outside}/other.txt")
    assert "unconfined" not in [c.id for c in h.approver.asked[2].choices] and not dangerous.ok


async def test_the_users_write_paths_widen_the_sandbox(tmp_path: Path) -> None:
    repo, cache = tmp_path / "repo", tmp_path / "cache"
    repo.mkdir()
    cache.mkdir()

    def widened(root: Path) -> CommandSandbox:
        from tests.core.confine.helpers import default_sandbox

        return default_sandbox(root, temp_parent=root.parent, write_paths=[str(cache)])

    h = harness(repo, answers=["once"], sandbox=widened)
    result = await h.call(command=f"cp /dev/null {cache}/pip.txt")
    assert result.ok and (cache / "pip.txt").exists()
    assert f"writes: this repository, a private temp dir, {cache}; network: off" in h.approver.asked[0].lines[-1]


async def test_unsandboxed_every_command_asks_once_and_no_grant_covers_one(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["session", "once"], allow_commands=ALLOW, sandbox=unsandboxed)
    h.permissions.policy.headless = frozenset({"bash"})
    h.permissions.granted.add("bash")
    first = await h.call(command="echo hi")
    second = await h.call(command="echo again")
    assert first.ok and second.ok and len(h.approver.asked) == 2
    for asked in h.approver.asked:
        assert asked.title == "Run this command unsandboxed?"
        assert [c.id for c in asked.choices] == ["once", "deny"]
        assert asked.lines[0].startswith("Unsandboxed: no sandbox confines commands on this system")
        assert asked.lines[-1] == "unsandboxed: no sandbox here (test) · changes are written to your files directly"
    assert scopes(h) == [("allow", "once"), ("allow", "once")]


async def test_yes_to_everything_never_widens_the_sandbox(tmp_path: Path) -> None:
    from ljtui.core.approval import AllowAll

    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    h = harness(repo)
    h.permissions.ask = AllowAll().decide
    result = await h.call(command=f"cp /dev/null {outside}/marker.txt")
    assert not result.ok and not (outside / "marker.txt").exists()


async def test_a_quoted_here_document_marker_no_longer_hides_a_recursive_delete(tmp_path: Path) -> None:
    """The issue's reproduction under ``--allow bash``: the ``<<EOF`` in quotes used to hide the next line."""
    (tmp_path / "victim" / "inner").mkdir(parents=True)
    h = harness(tmp_path)
    h.permissions.policy.headless = frozenset({"bash"})
    result = await h.call(command='echo "<<EOF"\nrm -r victim')
    assert not result.ok and "recursive delete" in result.content
    assert (tmp_path / "victim" / "inner").is_dir() and len(h.approver.asked) == 1


async def test_the_dialog_shows_the_command_exactly_as_it_will_run(tmp_path: Path) -> None:
    h = harness(tmp_path)
    hidden = "pytest -q\x1b[2K\x1b[1Gecho HIDDEN-RAN > f\rsafe\u202e\u200bx\nsecond line"
    await h.call(command=hidden)
    [asked] = h.approver.asked
    start = next(i for i, line in enumerate(asked.lines) if line.startswith("$ "))
    assert asked.lines[start:start + 2] == ("$ pytest -q\\x1b[2K\\x1b[1Gecho HIDDEN-RAN > f\\rsafe\\u202e\\u200bx",
                                            "  second line")
    assert not any("\x1b" in line or "\r" in line or "\u202e" in line for line in asked.lines)
