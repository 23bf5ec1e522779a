"""Delivery gates (GATE): risk-scored levels, objective evidence, user-only confirmation, a block on delivery."""
