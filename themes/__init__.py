"""Bundled ljtui themes (YAML files read with importlib.resources)."""
