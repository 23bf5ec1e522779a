"""The read-only planner agent: reads a repository, writes a checked EDIT plan.

Public API::

    run_planner(client, source_root, request, *, handbook_dir=None, max_turns=30,
                allow_secret_files=(), prompt_budget_tokens=100_000, ...) -> PlannerResult
    ReadOnlyTools(source_root, handbook_dir=None, *, secrets=SecretFiles())
    close_dangling_fence(plan) -> (plan, repaired)
    parse_declarations(plan) -> Declarations | None
    handbook_dir_from_skill(skill_dir) -> Path
    has_nested_unbounded_quantifier(src) -> bool
    build_planner_system_prompt(vars), PlannerPromptVars, DEFAULT_PROMPT_VARS, TOOL_PROTOCOL

Import them from their modules (``loop``, ``tools``, ``protocol``,
``prompts``, ``check``) or all at once from :mod:`ljtui.core.planner.api`.
"""
