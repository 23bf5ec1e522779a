"""The EDIT plan format and the atomic patcher (SPEC section 3).

Modules, in the order a plan flows through them:

* ``plan_format`` — ``parse_plan(text) -> EditPlan`` (markdown-it tokens,
  byte-exact fences) raising ``PlanParseError``; the model is in ``plan``,
  the ``- file:`` / ``- entry:`` value rules in ``plan_fields``.
* ``validate`` — ``validate_plan(plan, root) -> ValidationReport``: anchors
  (``anchors``: byte-exact, start-of-line rule, noted fallbacks), paths
  (``paths``: inside the root, never ``.git`` or ``.agent``) and chaining in
  memory, with candidates for failed anchors from ``evidence``; ``repair``
  renders failures for the planner's repair loop; ``secret_targets``
  refuses, unread, the secret files a model-facing check may not edit.
* ``apply`` — ``preview_plan`` / ``commit_plan`` / ``apply_plan``: entries,
  partial mode, chunking, the result contract (``result``) and post-apply
  syntax checks (``checks``, run in a bounded child by ``check_runner`` and
  ``check_worker``); ``diffs`` renders unified diffs.
* ``transaction`` — the crash-safe write, with ``durable`` (fsync, owner,
  extended attributes) and ``journal`` / ``manifest`` (the on-disk journal,
  read back strictly: it is untrusted input); ``restore`` rolls a journal
  back, ``recovery`` finishes what a crash interrupted, ``undo`` reverts the
  last applied plan. The state folder rules live in ``ljtui.core.statedir``.
* ``errors`` — every failure as a named value.
"""
