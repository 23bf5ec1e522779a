"""``ljtui --demo``: a guided first session, offline, on a copy of a bundled sample project.

``repo`` makes the copy (before the app starts), ``steps`` holds the
request and the words of each step, ``tour`` follows the engine's events
from step to step, ``app`` is the full-screen app with the guide, and
``script.yaml`` is the recorded model. Only ``app`` imports Textual.
"""
