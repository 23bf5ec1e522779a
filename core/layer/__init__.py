"""The session's copy-on-write layer over the repository (SPEC §11, LAYER).

Every effect of the agent lands in an overlay's upper folder, seen at the
repository's own path, and reaches the user's tree only through the
patcher's transaction, when the user applies it:

* :mod:`.place` — where a repository's layer lives (upper, work, its record) and its lock;
* :mod:`.overlay` — whether overlays work here, and the ``bwrap`` options that mount one;
* :mod:`.scan` — the layer's net change against the tree, read from the upper folder;
* :mod:`.diff` — that change as a git diff, which the review reads like any other change;
* :mod:`.replay` — rebuilding the upper folder from what is still pending;
* :mod:`.service` — :class:`~.service.Layer`, the one object the others are given.
* :mod:`.tools` — the file tools of a layered session, answered by a tool host in the layer
  (:mod:`.host`, started and asked by :mod:`.host_process` through :mod:`.host_protocol`).
"""
