"""The specs of the tools for the playbook library, as data: what the model is shown, loaded without the tools' code
(:mod:`ljtui.core.agent.tools.playbooks`, imported on a tool's first call)."""

from __future__ import annotations

from ljtui.core.playbooks import model as M
from ljtui.core.providers.base import ToolSpec

MAX_RESULTS = 10
"""Most search results returned."""

_STRINGS = {"type": "array", "items": {"type": "string"}}

_ID = {"id": {"type": "string", "description": "the playbook's id (from playbook_search)"}}

PLAYBOOK_SAVE = ToolSpec(
    "playbook_save",
    "Save a reusable procedure as a DRAFT playbook after a task succeeded: when to use it, the steps that worked "
    "(sop), the pitfalls met, how the result was verified and the evidence. Its id is built from the title. Only "
    "the user can make a draft active.",
    {"type": "object", "properties": {
        "title": {"type": "string", "description": "what the procedure achieves, in any language"},
        "when_to_use": {"type": "string", "description": "one line: the requests it fits"},
        "tags": {**_STRINGS, "description": "short labels, e.g. [\"build\", \"windows\"]"},
        "sop": {**_STRINGS, "description": "the steps that worked, in order"},
        "preconditions": {**_STRINGS, "description": "what must hold before starting"},
        "pitfalls": {**_STRINGS, "description": "mistakes met and how to avoid them"},
        "verification": {**_STRINGS, "description": "how to check the result"},
        "evidence": {**_STRINGS, "description": "what showed it worked (commands and their outcome)"},
        "scope": {"type": "string", "enum": list(M.SCOPES),
                  "description": "project (default): this repository's library; user: the user's own"}},
     "required": ["title", "when_to_use", "sop"], "additionalProperties": False},
)

PLAYBOOK_SEARCH = ToolSpec(
    "playbook_search",
    "Search the playbook library for procedures that worked before. Scores tag matches and keyword hits in title, "
    "tags, when-to-use and body; proven playbooks rank first. Works for any language. Active playbooks only "
    "unless include_drafts.",
    {"type": "object", "properties": {
        "query": {"type": "string", "description": "keywords describing the task"},
        "tags": {**_STRINGS, "description": "tags to match"},
        "include_drafts": {"type": "boolean", "description": "also return drafts (unproven)"},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS}},
     "required": ["query"], "additionalProperties": False},
)

PLAYBOOK_GET = ToolSpec(
    "playbook_get", "Read one playbook in full: its fields, record and sections (SOP, pitfalls, verification …).",
    {"type": "object", "properties": _ID, "required": ["id"], "additionalProperties": False},
)

PLAYBOOK_PROMOTE = ToolSpec(
    "playbook_promote",
    "Ask the user to make a draft playbook active. The user decides; without them the answer is no. Use it only "
    "when the user asked for it.",
    {"type": "object", "properties": _ID, "required": ["id"], "additionalProperties": False},
)

PLAYBOOK_FEEDBACK = ToolSpec(
    "playbook_feedback",
    "Record whether following a playbook worked (ok) or not (fail), once the outcome is known. An active "
    "playbook that keeps failing is demoted automatically.",
    {"type": "object", "properties": {**_ID, "outcome": {"type": "string", "enum": list(M.OUTCOMES)}},
     "required": ["id", "outcome"], "additionalProperties": False},
)
