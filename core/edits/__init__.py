"""The EDIT plan format and the atomic patcher (SPEC section 3)."""
