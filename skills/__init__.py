"""Bundled ljtui skills (YAML files and Agent Skills folders, read by core/skills.py)."""
