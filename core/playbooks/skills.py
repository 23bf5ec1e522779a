"""Active playbooks as skills (PB-6): ``playbook-<id>``, described by ``when_to_use``, steps from the SOP.

:func:`ljtui.core.skills.load_skills` adds these after its own sources, so
``/playbook-<id>`` in the app and ``ljtui run --skill playbook-<id>`` start
a task plan from the playbook's SOP like any skill (still approved by the
user). Only active playbooks are offered, and the repository's only when
the user trusts the repository.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ljtui.core.playbooks.model import ACTIVE, Playbook
from ljtui.core.playbooks.store import REPOSITORY, PlaybookStore
from ljtui.core.skill_files import Skill

SKILL_PREFIX = "playbook-"
"""The name of a playbook as a skill is this prefix and its id (``/playbook-<id>``)."""


PLAYBOOK_SOURCE = "playbook"
"""The source a playbook skill names (the Conversation says "from the skill … (playbook)")."""


def skill_name(playbook_id: str) -> str:
    """The skill an active playbook is offered as."""
    return f"{SKILL_PREFIX}{playbook_id}"


def as_skill(playbook: Playbook, path: Path) -> Skill:
    """``playbook`` as a skill: its SOP items are the steps (its title when it has none)."""
    from ljtui.core.skill_files import Step
    steps = tuple(Step(step) for step in playbook.sop_steps()) or (Step(f"Follow the playbook: {playbook.title}"),)
    return Skill(skill_name(playbook.id), playbook.when_to_use or playbook.title, steps, PLAYBOOK_SOURCE, path,
                 playbook.body.strip())


def playbook_skills(root: Path | None, env: Mapping[str, str] | None = None) -> tuple[dict[str, Skill], list[str]]:
    """The active playbooks the model may be offered, as skills by name, and the warnings about the rest."""
    store = PlaybookStore(root, env)
    library = store.load(for_model=True)
    skills = {}
    for playbook in library.playbooks:
        if playbook.status == ACTIVE:
            folder = (root / ".agent" / "playbooks") if playbook.source == REPOSITORY and root else store.user_dir
            skills[skill_name(playbook.id)] = as_skill(playbook, folder / f"{playbook.id}.md")
    return skills, library.warnings
