"""The planner's public API in one import."""

from __future__ import annotations

from ljtui.core.planner.check import parse_declarations
from ljtui.core.planner.aborts import ABORT_REASONS
from ljtui.core.planner.loop import DEFAULT_MAX_TURNS, FABRICATION_LIMIT, MAX_REPAIR_ROUNDS, PlannerResult, run_planner
from ljtui.core.planner.prompts import (
    DEFAULT_PROMPT_VARS, TOOL_PROTOCOL, PlannerPromptVars, build_planner_system_prompt,
)
from ljtui.core.planner.protocol import close_dangling_fence
from ljtui.core.planner.tools import ReadOnlyTools, ToolResult
from ljtui.core.regex_guard import has_nested_unbounded_quantifier
from ljtui.core.sandbox import handbook_dir_from_skill

__all__ = [
    "ABORT_REASONS", "DEFAULT_MAX_TURNS", "DEFAULT_PROMPT_VARS", "FABRICATION_LIMIT", "MAX_REPAIR_ROUNDS",
    "PlannerPromptVars", "PlannerResult", "ReadOnlyTools", "TOOL_PROTOCOL", "ToolResult",
    "build_planner_system_prompt", "close_dangling_fence", "handbook_dir_from_skill",
    "has_nested_unbounded_quantifier", "parse_declarations", "run_planner",
]
