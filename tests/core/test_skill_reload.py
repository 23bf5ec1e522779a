"""Skills and playbooks edited by hand while a session runs: the real watcher reads them again, a broken file is
named with its problem and drops no other skill, and the next recall reads the playbook as edited (UI-7)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Callable

import pytest

from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Event, Notice, SkillsChanged
from ljtui.core.ports import ListSink
from ljtui.core.skill_watch import REPOSITORY_FILES, USER_FILES, SkillReload, touches
from ljtui.core.trust import TrustStore
from ljtui.core.userdirs import user_config_dir
from tests.core.playbooks.helpers import write_playbook

TIMEOUT = 20.0
POKE_SECONDS = 0.3
SKILL = "name: {name}\ndescription: {description}\nsteps:\n  - Find the failing test\n  - Fix it\n"


def write_skill(folder: Path, name: str, description: str = "fixes the tests") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(SKILL.format(name=name, description=description), encoding="utf-8")
    return path


class Watching:
    """An engine of ``repo`` watching the disk, and a way to wait for what it says."""

    def __init__(self, repo: Path) -> None:
        self.sink = ListSink()
        self.engine = Engine(Config(), self.sink, repo_root=repo)
        self.stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Watching:
        self.task = asyncio.ensure_future(self.engine.watch(self.stop))
        return self

    async def __aexit__(self, *_: object) -> None:
        self.stop.set()
        assert self.task is not None
        await asyncio.wait_for(self.task, TIMEOUT)

    async def ready(self, folder: Path) -> None:
        """Touch a hidden file in ``folder`` (skills and playbooks never read one) until the skills are read
        again: the watcher is set up."""
        folder.mkdir(parents=True, exist_ok=True)
        await self._until(lambda events: any(isinstance(e, SkillsChanged) for e in events),
                          lambda: (folder / ".probe").write_text(str(time.monotonic())))

    async def until(self, found: Callable[[list[Event]], bool], change: Callable[[], object]) -> list[Event]:
        """Make ``change`` once, then wait until the events since satisfy ``found``."""
        start = len(self.sink.events)
        change()
        return await self._until(found, lambda: None, start)

    async def _until(self, found: Callable[[list[Event]], bool], poke: Callable[[], object],
                     start: int | None = None) -> list[Event]:
        start = len(self.sink.events) if start is None else start
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            poke()
            await asyncio.sleep(POKE_SECONDS)
            if found(self.sink.events[start:]):
                return self.sink.events[start:]
        raise AssertionError(f"not seen in time; events: {self.sink.events[start:]}")


def skills_with(name: str) -> Callable[[list[Event]], bool]:
    return lambda events: any(isinstance(e, SkillsChanged) and name in e.names for e in events)


def warnings(events: list[Event]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]


def test_which_changed_paths_reach_the_skills() -> None:
    assert touches({"app.py", ".agent/skills/fix.yaml"}, REPOSITORY_FILES)
    assert touches({".agent/playbooks"}, REPOSITORY_FILES), "the folder itself (made or removed)"
    assert not touches({"app.py", ".agent/gates/g.md", ".agent/skillsets.txt"}, REPOSITORY_FILES)
    assert touches({"trusted-repos.json"}, USER_FILES) and not touches({"config.yaml"}, USER_FILES)


async def test_a_skill_added_while_the_session_runs_can_be_started(git_repo: Path) -> None:
    folder = user_config_dir() / "skills"
    write_skill(folder, "first-skill")
    async with Watching(git_repo) as watching:
        await watching.ready(folder)
        seen = await watching.until(skills_with("fresh-skill"), lambda: write_skill(folder, "fresh-skill"))
        changed = next(e for e in seen if isinstance(e, SkillsChanged))
        assert {"first-skill", "fresh-skill"} <= set(changed.names)
        assert "Skills changed on disk: /fresh-skill can be started." in [
            e.message for e in seen if isinstance(e, Notice)]
        run = watching.engine.tasks.skill_names()
        assert "fresh-skill" in run, "what /NAME starts reads the same files"


async def test_a_broken_skill_file_is_named_and_the_others_stay(git_repo: Path) -> None:
    folder = user_config_dir() / "skills"
    write_skill(folder, "good-skill")
    broken = folder / "broken.yaml"
    async with Watching(git_repo) as watching:
        await watching.ready(folder)
        seen = await watching.until(
            lambda events: any("broken.yaml" in w for w in warnings(events)),
            lambda: broken.write_text("name: broken\nsteps: [\n", encoding="utf-8"))
        [said] = {w for w in warnings(seen) if "broken.yaml" in w}
        assert said.startswith(f"Skills read again: user skill {broken}:") and said.endswith("; skipped")
        changed = [e for e in seen if isinstance(e, SkillsChanged)]
        assert changed and all("good-skill" in e.names and "broken" not in e.names for e in changed)
        assert watching.task is not None and not watching.task.done(), "the watcher goes on"


async def test_a_repository_skill_added_by_hand_waits_for_trust_and_says_so(git_repo: Path) -> None:
    TrustStore.for_env(os.environ).trust(git_repo, 1.0)
    folder = git_repo / ".agent" / "skills"
    async with Watching(git_repo) as watching:
        await watching.ready(git_repo / ".agent" / "playbooks")
        await watching.ready(user_config_dir() / "skills")
        seen = await watching.until(lambda events: any("not trusted" in w for w in warnings(events)),
                                    lambda: write_skill(folder, "repo-skill"))
        assert any("repository skill(s) in .agent/skills are ignored" in w for w in warnings(seen))
        assert all("repo-skill" not in e.names for e in seen if isinstance(e, SkillsChanged)), \
            "a skill added to a trusted repository is not used until the user trusts it again"
        seen = await watching.until(skills_with("repo-skill"),
                                    lambda: TrustStore.for_env(os.environ).trust(git_repo, 2.0))
        assert "Skills changed on disk: /repo-skill can be started." in [
            e.message for e in seen if isinstance(e, Notice)]


async def test_a_playbook_edited_by_hand_is_what_the_next_recall_reads(git_repo: Path) -> None:
    library = user_config_dir() / "playbooks"
    keys = dict(tags=["signing", "keys"], when="when the signing keys expire", sop=["Rotate the keys"],
                scope="user")
    async with Watching(git_repo) as watching:
        await watching.ready(library)
        await watching.until(skills_with("playbook-rotate-keys"),
                             lambda: write_playbook(library, "rotate-keys", "Rotate the signing keys", **keys))
        playbooks = watching.engine.playbooks
        hit = playbooks.recall("rotate the signing keys")
        assert hit is not None and hit.playbook.id == "rotate-keys"
        write_playbook(library, "rotate-keys", "Renew the TLS certificates", tags=["tls", "certificates"],
                       when="when the tls certificates expire", sop=["Renew them"], scope="user")
        assert playbooks.recall("rotate the signing keys") is None, "no copy of the old text is kept"
        hit = playbooks.recall("renew the tls certificates")
        assert hit is not None and hit.playbook.sop_steps() == ("Renew them",)
        path = library / "rotate-keys.md"
        seen = await watching.until(lambda events: any("rotate-keys.md" in w for w in warnings(events)),
                                    lambda: path.write_text("---\nid: rotate-keys\n", encoding="utf-8"))
        assert any(str(path) in w for w in warnings(seen)), "the notice names the file"
        assert any(isinstance(e, SkillsChanged) and "playbook-rotate-keys" not in e.names for e in seen)
        assert playbooks.recall("renew the tls certificates") is None


def test_a_reload_says_only_what_is_new_or_names_a_changed_file(tmp_path: Path, isolated_env: Path) -> None:
    folder = user_config_dir() / "skills"
    (folder).mkdir(parents=True)
    (folder / "old.yaml").write_text("steps: 3\n", encoding="utf-8")
    sink = ListSink()
    reload = SkillReload(tmp_path, sink.emit)
    reload.baseline()
    reload.reload({"config.yaml"})
    assert warnings(sink.events) == [], "an old problem already said is not said again"
    reload.reload({"skills/old.yaml"})
    assert len(warnings(sink.events)) == 1 and "old.yaml" in warnings(sink.events)[0], "unless its file changed"


@pytest.fixture(autouse=True)
def _config_dir(isolated_env: Path) -> None:
    """The user's config dir exists, as it does once ljtui ran (a missing one is not watched)."""
    user_config_dir().mkdir(parents=True, exist_ok=True)
