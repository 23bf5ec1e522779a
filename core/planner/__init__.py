"""The read-only planner agent (SPEC section 2)."""
