"""The specs of the tools for delivery gates, as data: what the model is shown, loaded without the tools' code
(:mod:`ljtui.core.agent.tools.gates`, imported on a tool's first call)."""

from __future__ import annotations

from ljtui.core.gates.records import FLAGS, MAX_ITEMS, SCORES
from ljtui.core.providers.base import ToolSpec

_GATE_ID = {"type": "string", "description": "the gate's id, as gate_propose returned it"}

STATUS = ToolSpec("gate_status", "Show the gate in focus (or gate_id): level, R and its factors, each item's status "
                  "(pending, passed, failed, stale, independent) and what blocks delivery.",
                  {"type": "object", "properties": {"gate_id": _GATE_ID}, "additionalProperties": False})

PROPOSE = ToolSpec(
    "gate_propose",
    "Propose a delivery gate for risky work: check items whose commands show objectively that the work is right, "
    "and your estimate of the risk factors. The engine computes R and the level (you never set them); L2 and "
    "above stage your writes and block delivery until every required item has fresh passing evidence. Give "
    "gate_id to change an existing gate's items or factors (it then needs confirming again).",
    {"type": "object", "properties": {
        "title": {"type": "string"}, "gate_id": _GATE_ID,
        "items": {"type": "array", "minItems": 1, "maxItems": MAX_ITEMS, "items": {"type": "object", "properties": {
            "id": {"type": "string", "description": "short, kebab-case, e.g. tests"},
            "description": {"type": "string"}, "command": {"type": "string", "description": "shell command"},
            "required": {"type": "boolean"}}, "required": ["id", "description", "command"]}},
        "factors": {"type": "object", "properties": {
            **{k: {"type": "number", "minimum": 0, "maximum": 1} for k in SCORES},
            **{k: {"type": "boolean"} for k in FLAGS}}, "required": [*SCORES, *FLAGS]}},
     "required": ["title", "items", "factors"], "additionalProperties": False})

CONFIRM = ToolSpec("gate_confirm", "Ask the USER to confirm the gate's items, commands and level in a dialog. You "
                   "cannot confirm it yourself; a denial means the gate stays unconfirmed.",
                   {"type": "object", "properties": {"gate_id": _GATE_ID}, "required": ["gate_id"],
                    "additionalProperties": False})

START = ToolSpec("gate_start", "Ask the USER to start a run of a confirmed gate. At L2 and above your writes and "
                 "commands then happen in a staging copy of the repository until the gate passes and is delivered.",
                 {"type": "object", "properties": {"gate_id": _GATE_ID}, "required": ["gate_id"],
                  "additionalProperties": False})

CHECK = ToolSpec("gate_check", "Have the engine run a check item's command (all items when item is omitted) where "
                 "the work is, and record exit code, duration and output as evidence. Re-run after every change: "
                 "evidence taken before a later edit is stale.",
                 {"type": "object", "properties": {"item": {"type": "string"}}, "additionalProperties": False})

VERIFY = ToolSpec("gate_verify", "At L3: have the engine start an independent verifier agent that checks the "
                  "gate's required items itself. Its id is recorded with its evidence.",
                  {"type": "object", "properties": {}, "additionalProperties": False})

FINISH = ToolSpec("gate_finish", "End the gate run you started: pass (refused while any required item lacks "
                  "evidence, failed, or is stale), fail, or exempt (asks the user). A pass delivers the staged change.",
                  {"type": "object", "properties": {"outcome": {"type": "string", "enum": ["pass", "fail", "exempt"]}},
                   "required": ["outcome"], "additionalProperties": False})

DELIVER = ToolSpec("gate_deliver", "Deliver the staged change to the user's files (one EDIT plan through the Diff "
                   "pane's atomic apply, which asks the user). Refused until the gate passes.",
                   {"type": "object", "properties": {}, "additionalProperties": False})
