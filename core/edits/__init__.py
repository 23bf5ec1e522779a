"""The EDIT plan format and the atomic patcher (SPEC section 3).

Modules, in the order a plan flows through them:

* ``plan_format`` — ``parse_plan(text) -> EditPlan`` (markdown-it tokens,
  byte-exact fences) raising ``PlanParseError``; the model is in ``plan``.
* ``validate`` — ``validate_plan(plan, root) -> ValidationReport``: anchors,
  paths and chaining in memory (``anchors``, ``paths``), with candidates
  for failed anchors from ``evidence``; ``repair`` renders failures for the
  planner's repair loop.
* ``apply`` — ``preview_plan`` / ``commit_plan`` / ``apply_plan``: entries,
  partial mode, chunking, the result contract (``result``) and post-apply
  syntax checks (``checks``); ``diffs`` renders unified diffs.
* ``transaction`` and ``journal`` — the crash-safe write; ``recovery`` —
  ``recover_journal`` and ``undo_last``.
* ``errors`` — every failure as a named value.
"""
