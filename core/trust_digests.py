"""What each settings file of a repository counts by for trust (:mod:`ljtui.core.trust_content`): its bytes, or
what it defines where ljtui itself rewrites the rest.

A gate counts by its definition (title, checklist, factors, notes) and a playbook by its text (title, tags,
description, body): ljtui rewrites their run history, stats, status and times after each use. Claude Code's
``.claude/settings.json`` counts by its ``hooks`` only, what ljtui runs from it. Every other file counts by its
bytes. A file that cannot be read as what it should be counts by its bytes too.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable

from ljtui.core.statedir import AGENT_DIR

GATES_DIR = f"{AGENT_DIR}/gates"
PLAYBOOKS_DIR = f"{AGENT_DIR}/playbooks"
HOOKS_FILE = f"{AGENT_DIR}/hooks.json"
CLAUDE_DIR = ".claude"
CLAUDE_SETTINGS = f"{CLAUDE_DIR}/settings.json"
DEFINITION_SUFFIX = ".md"
"""Gates and playbooks are ``*.md`` files (hidden names are ljtui's own temp and lock files)."""


def digest_of(rel: str, data: bytes) -> str:
    """The digest of the settings file ``rel`` (repository-relative) holding ``data``."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(DEFINITION_SUFFIX)
    if rel == CLAUDE_SETTINGS:
        return _meaning_digest(b"hooks", data, _claude_hooks)
    if rel.startswith(GATES_DIR + "/"):
        return _meaning_digest(b"gate", data, lambda text: _gate_meaning(text, stem))
    if rel.startswith(PLAYBOOKS_DIR + "/"):
        return _meaning_digest(b"playbook", data, lambda text: _playbook_meaning(text, stem))
    return hashed(b"bytes", data)


def hashed(kind: bytes, payload: bytes) -> str:
    """The SHA-256 (hex) of ``payload`` tagged with ``kind``."""
    return hashlib.sha256(kind + b"\0" + payload).hexdigest()


def _meaning_digest(kind: bytes, data: bytes, meaning: Callable[[str], Any]) -> str:
    """The digest of what a file defines; of its bytes when it cannot be read as one."""
    try:
        parsed = meaning(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return hashed(b"bytes", data)
    text = json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashed(kind, text.encode("ascii"))


def _claude_hooks(text: str) -> Any:
    """Of Claude Code's settings, the hooks (what ljtui runs from them)."""
    document = json.loads(text)
    return document.get("hooks") if isinstance(document, dict) else None


def _gate_meaning(text: str, stem: str) -> dict[str, Any]:
    """A gate without what its runs change (history, stats, level, times): what it asks to run, and why."""
    from ljtui.core.gates.markdown import parse_gate

    gate = parse_gate(text, stem).gate
    f = gate.factors
    return {"id": gate.id, "title": gate.title, "notes": gate.notes.strip(),
            "items": [[i.id, i.description, i.command, i.required] for i in gate.items],
            "factors": [f.change_surface, f.chain_length, f.cognitive_density, f.objectively_verifiable,
                        f.irreversible]}


def _playbook_meaning(text: str, stem: str) -> dict[str, Any]:
    """A playbook without what its uses change (stats, status, times): what it tells the model."""
    from ljtui.core.playbooks.model import parse_playbook

    playbook, _ = parse_playbook(text, stem)
    return {"id": playbook.id, "title": playbook.title, "scope": playbook.scope, "tags": list(playbook.tags),
            "when_to_use": playbook.when_to_use, "body": playbook.body}
