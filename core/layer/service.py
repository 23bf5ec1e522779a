"""The layer as one service: made once per session, given to the commands, the tools, the gates and the review.

:class:`Layer` answers whether this session works layered or directly
(and why), gives the ``bwrap`` options that run a command in the layer,
holds the layer's lock around everything that mounts or changes it,
records the tree's stamps of what the layer took, computes the net change
(:mod:`.scan`), and after the user's decisions keeps exactly what is still
pending (:mod:`.replay`), or drops the layer.

Every method does disk or process work: call them from a thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from contextlib import AbstractAsyncContextManager, AbstractContextManager, asynccontextmanager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, AsyncIterator, Callable, Iterable, Iterator, Mapping

from ljtui.core.git import run_git
from ljtui.core.layer import overlay, replay
from ljtui.core.layer.place import UNKNOWN, LayerPlace, LayerRecordError, Stamp, _remove_tree, stamp_of
from ljtui.core.layer.view import HomeView, view_args
from ljtui.core.layer.scan import DELETE, MOVE, LayerChange, LayerEntry, covered_paths, scan, with_ignored

LAYERED, DIRECT = "layered", "direct"
DIRECT_WORDS = "changes are written to your files directly"
"""What the status bar, ``ljtui doctor`` and every dialog say when there is no layer."""
LAYER_CHOICES = ("auto", "on", "off")
"""Values of ``agent.layer``."""
if TYPE_CHECKING:
    from ljtui.core.confine.spawn import Confinement

OLD_UPPER, GONE_UPPER = "upper.old", "upper.gone"
REPLAY_TIMEOUT_SECONDS = 120.0
CHECK_IGNORE_CHUNK = 2000
HOLD_POLL_SECONDS = 0.05
"""How often a wait for the layer stops the tool host again (one that started meanwhile)."""


class LayerUnavailable(RuntimeError):
    """The layer cannot be used here (the message says why)."""


@dataclass(frozen=True)
class LayerStatus:
    """Whether the session works in a layer.

    Attributes:
        mode: :data:`LAYERED` or :data:`DIRECT`.
        why: one sentence: why this mode.
        bwrap: the ``bwrap`` program, when layered.
    """

    mode: str
    why: str
    bwrap: str | None = None

    @property
    def layered(self) -> bool:
        return self.mode == LAYERED

    @property
    def label(self) -> str:
        """``layered``, or the words saying changes go to the files directly."""
        return LAYERED if self.layered else DIRECT_WORDS


Probe = Callable[[str | None, Path, Path], "str | None"]


class Layer:
    """One repository's layer.

    Args:
        repo: the repository root (the overlay's lower layer, mounted over at its own path).
        setting: ``agent.layer``: ``auto`` (layered where it works), ``on`` (the same, said louder when it does
            not) or ``off`` (direct).
        env: locates ljtui's state folder (default ``os.environ``).
        bwrap: finds the ``bwrap`` program.
        probe: checks that an overlay works here (tests inject one that says it does not).
    """

    def __init__(self, repo: Path, setting: str = "auto", *, env: Mapping[str, str] | None = None,
                 bwrap: Callable[[], str | None] = overlay.find_bwrap, probe: Probe = overlay.probe) -> None:
        self.repo = Path(os.path.realpath(repo))
        self.setting = setting
        self.place = LayerPlace.of(self.repo, env)
        self._find_bwrap = bwrap
        self._probe = probe
        self._status: LayerStatus | None = None
        self._status_lock = threading.Lock()
        self._mount_lock = threading.Lock()
        """Held by whoever mounts or changes the layer in this process (the place's lock does it across processes)."""
        self._stopper: Callable[[], None] | None = None
        """Stops the tool host that holds the layer now, if one does."""
        self._host_lock: AbstractContextManager[None] | None = None

    @property
    def status(self) -> LayerStatus:
        """Layered or direct, and why (probed once: call from a thread)."""
        with self._status_lock:
            if self._status is None:
                self._status = self._detect()
            return self._status

    @property
    def known_status(self) -> LayerStatus | None:
        """The status if it was already probed."""
        return self._status

    def _detect(self) -> LayerStatus:
        if self.setting == "off":
            return LayerStatus(DIRECT, "agent.layer is 'off' in your config")
        if not sys.platform.startswith("linux"):
            return LayerStatus(DIRECT, "the layer needs Linux's overlays")
        program = self._find_bwrap()
        problem = self._probe(program, self.repo, self.place.folder.parent / ".probes")
        if problem is not None:
            return LayerStatus(DIRECT, f"no layer here: {problem}")
        return LayerStatus(LAYERED, f"an overlay over {self.repo} (bubblewrap {program})", program)

    @contextmanager
    def holding(self) -> Iterator[LayerPlace]:
        """Hold the layer alone: the tool host stopped, no other mount of it in this process or any other, its
        folders made and any interrupted rebuild undone. Blocks while another holds it: call from a thread."""
        while True:
            stopper = self._stopper
            if stopper is not None:
                stopper()  # a host started meanwhile is stopped on the next round
            if self._mount_lock.acquire(timeout=HOLD_POLL_SECONDS):
                break
        try:
            with self.place.locked():
                self._recover()
                self.place.ensure()
                yield self.place
        finally:
            self._mount_lock.release()

    def host_acquire(self, stop: Callable[[], None]) -> None:
        """Take the layer for the tool host, whose ``stop`` ends it (:meth:`holding` calls it to take the layer
        back); release with :meth:`host_release`, from any thread. Blocks while another holds the layer."""
        self._mount_lock.acquire()
        try:
            self._host_lock = self.place.locked()
            self._host_lock.__enter__()
            self._recover()
            self.place.ensure()
        except BaseException:
            self._host_lock = None
            self._mount_lock.release()
            raise
        self._stopper = stop

    def host_release(self) -> None:
        """Give back the layer the tool host held, recording the tree's stamps of what it wrote."""
        held, self._host_lock, self._stopper = self._host_lock, None, None
        try:
            self.record()
        finally:
            if held is not None:
                held.__exit__(None, None, None)
            self._mount_lock.release()

    def mount_args(self, view: HomeView | None = None) -> list[str]:
        """The ``bwrap`` options, after the program, that run a process in the layer (hold :meth:`holding`);
        ``view``: hide the home folder and the machine's sockets but what it keeps (:mod:`.view`).

        Raises:
            LayerUnavailable: the session works directly.
        """
        status = self.status
        if not status.layered or status.bwrap is None:
            raise LayerUnavailable(status.why)
        hidden = view_args(view) if view is not None else []
        return [*overlay.base_args(status.bwrap)[1:], *hidden,
                *overlay.overlay_args(self.repo, self.place.upper, self.place.work)]

    def command_args(self, view: HomeView) -> tuple[str, ...]:
        """The ``bwrap`` program and options that run a command in the layer, seeing of the machine what
        ``view`` keeps (for :class:`~ljtui.core.confine.spawn.Confinement`).

        Raises:
            LayerUnavailable: the session works directly.
        """
        return (self.status.bwrap or "bwrap", *self.mount_args(view))

    def record(self) -> None:
        """Record the tree's stamp of every path the layer now covers that it did not before (hold :meth:`holding`).
        A record that cannot be read back is replaced by one that marks every covered path unknown: the user's
        edits made meanwhile stay stale, never overwritten."""
        covered = covered_paths(self.place.upper, self.repo)
        try:
            stamps = self.place.read_stamps()
        except LayerRecordError:
            self.place.write_stamps({rel: UNKNOWN for rel in covered})
            return
        fresh = {rel: stamp_of(self.repo / rel) for rel in covered if rel not in stamps}
        if fresh:
            self.place.write_stamps({**stamps, **fresh})

    def change(self) -> LayerChange:
        """The layer's net change against the tree as it is now (hold :meth:`holding`)."""
        try:
            stamps = self.place.read_stamps()
        except LayerRecordError:  # no trustworthy record: every path counts as changed by the user
            stamps = {p: UNKNOWN for p in covered_paths(self.place.upper, self.repo)}
        change = scan(self.place.upper, self.repo, stamps=stamps)
        return with_ignored(change, self._ignored([e.path for e in change.entries if e.kind != DELETE]))

    def peek(self) -> LayerChange:
        """The layer's net change without holding it: what a reader that must not wait sees (a gate's view, the
        hash its evidence is compared with). A command running meanwhile may be changing it; a rebuild in progress
        reads as no change."""
        if not self.place.upper.is_dir():
            return LayerChange()
        try:
            return self.change()
        except FileNotFoundError:  # the upper folder was swapped by a rebuild under the scan
            return LayerChange()

    def _ignored(self, paths: list[str]) -> set[str]:
        if not paths or not (self.repo / ".git").exists():
            return set()
        found: set[str] = set()
        for start in range(0, len(paths), CHECK_IGNORE_CHUNK):
            chunk = paths[start:start + CHECK_IGNORE_CHUNK]
            data = b"".join(os.fsencode(p) + b"\0" for p in chunk)
            try:
                done = run_git(["check-ignore", "-z", "--stdin"], self.repo, input=data)
            except (OSError, subprocess.SubprocessError, ValueError):
                return found
            found.update(os.fsdecode(p) for p in done.stdout.split(b"\0") if p)
        return found

    def keep_only(self, pending: Iterable[LayerEntry]) -> None:
        """Rebuild the layer so it holds exactly ``pending`` (hold :meth:`holding`); an empty ``pending`` drops it.

        Raises:
            LayerUnavailable: the session works directly.
            OSError: the rebuild failed; the layer is as it was.
        """
        entries = list(pending)
        try:
            stamps: dict[str, Stamp | None] = dict(self.place.read_stamps())
        except LayerRecordError:
            stamps = {p: UNKNOWN for e in entries for p in e.paths}
        if not entries:
            self.place.remove()
            return
        ops: list[tuple[str, str]] = []
        for entry in entries:
            if entry.kind == DELETE:
                ops.append(("remove", entry.path))
                continue
            if entry.kind == MOVE:
                ops.append(("remove", entry.moved_from))
            ops.append(("put", entry.path))
        old = self.place.folder / OLD_UPPER
        os.replace(self.place.upper, old)
        self.place.discard(self.place.work)
        self.place.ensure()
        try:
            self._replay(old, ops)
        except BaseException:
            _remove_tree(self.place.upper)
            _remove_tree(self.place.work)
            os.replace(old, self.place.upper)
            self.place.work.mkdir(mode=0o700)
            raise
        self.place.discard(old)
        kept = {p for e in entries for p in e.paths}
        self.place.write_stamps({p: s for p, s in stamps.items() if p in kept})

    def _replay(self, old: Path, ops: list[tuple[str, str]]) -> None:
        job = json.dumps({"repo": str(self.repo), "old": str(old), "ops": ops}).encode("utf-8")
        argv = [self._find_bwrap() or "bwrap", *self.mount_args(), "--unshare-net", "--chdir", "/", "--",
                os.path.realpath(sys.executable), "-I", "-S", "-B", replay.__file__]
        done = subprocess.run(argv, input=job, capture_output=True, timeout=REPLAY_TIMEOUT_SECONDS,
                              env={"PATH": "/usr/bin:/bin"})
        if done.returncode != 0:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise OSError(f"the layer could not be rebuilt: {lines[-1] if lines else f'exit {done.returncode}'}")

    def settle(self, decided: Iterable[str] = ()) -> LayerChange:
        """After the user's decisions: every entry touching a ``decided`` path (tree paths whose blocks were
        applied or rejected) leaves the layer, the rest stays (hold :meth:`holding`). A file with one hunk
        applied and one rejected thus leaves whole: the tree has what the user took. Returns what is left."""
        done = set(decided)
        change = self.change()
        pending = [e for e in change.entries if not done.intersection(e.paths)]
        self.keep_only(pending)  # also drops the upper folder's copies of what the tree now holds
        return self.change()

    def drop(self) -> None:
        """Throw the whole layer away (hold :meth:`holding`)."""
        self.place.remove()

    def _recover(self) -> None:
        """Undo a rebuild a crash interrupted (the old upper folder is the layer), and empty the trash."""
        self.place.discard(self.place.folder / GONE_UPPER)
        old = self.place.folder / OLD_UPPER
        if old.is_dir():
            self.place.discard(self.place.upper)
            self.place.discard(self.place.work)
            os.replace(old, self.place.upper)
        self.place.empty_trash()


@asynccontextmanager
async def held(layer: Layer) -> AsyncIterator[None]:
    """Hold ``layer`` alone for the body (a command's whole life), then record what it took.

    Waiting for the layer happens in a thread; a cancellation while waiting still lets go of the layer once the
    thread got it, so it is never left held.
    """
    hold = layer.holding()
    entering = asyncio.ensure_future(asyncio.to_thread(hold.__enter__))
    try:
        await asyncio.shield(entering)
    except asyncio.CancelledError:
        entering.add_done_callback(lambda done: None if done.cancelled() or done.exception() is not None
                                   else hold.__exit__(None, None, None))
        raise
    try:
        yield
    finally:
        def leave() -> None:
            try:
                layer.record()
            finally:
                hold.__exit__(None, None, None)

        await asyncio.shield(asyncio.to_thread(leave))


def held_for(layer: Layer | None, confinement: Confinement) -> AbstractAsyncContextManager[None]:
    """Hold ``layer`` for a command's whole life when ``confinement`` runs it in the layer; nothing otherwise."""
    if confinement.layered and layer is not None:
        return held(layer)
    return nullcontext()
