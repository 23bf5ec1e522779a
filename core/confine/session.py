"""One session's sandbox: the backend, the private temp dir, and what the user widened.

:class:`CommandSandbox` is made once per engine. It finds the backend on
first use (:func:`~ljtui.core.confine.status.detect`, a self-test of tens
of milliseconds: first use happens in a worker, never on the UI's event
loop), creates the session's private temp dir (``ljtui-…`` in the system
temp dir, mode 0700) and removes it on :meth:`close`.

For each command it gives a :class:`~ljtui.core.confine.spawn.Confinement`:
writes allowed below the folder the command works in (the repository, or
the staging tree while a gate stages the work), the private temp dir, the
user's ``agent.sandbox.write_paths``, and harmless devices; the network off
unless ``agent.sandbox.network`` is on, the user granted it for the
session, or for this one command. Only the user widens it: the values come
from the user's own config (keys a repository cannot set) and from dialog
answers, never from the model.

Whatever the configuration says, no place is writable that is ``/``, a home
folder or one of ljtui's own folders, holds one, or lies inside one of
ljtui's own (:mod:`ljtui.core.session_root`): a sandbox is never made for
such a root (:class:`~ljtui.core.session_root.UnsafeRoot`), and such a
write path or command folder is left out (:meth:`CommandSandbox.refused_write_paths`
says which, and why).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from ljtui.core.childenv import child_env
from ljtui.core.confine.rules import Place, Rules
from ljtui.core.confine.spawn import Confinement
from ljtui.core.confine.status import AUTO, NONE, SandboxStatus, detect
from ljtui.core.layer.secret_view import SecretView, hiding_args, placeholder
from ljtui.core.layer.view import HomeView, home_view
from ljtui.core.secret_files import SecretFiles
from ljtui.core.session_root import UnsafeRoot, place_refusal

if TYPE_CHECKING:
    from ljtui.core.layer.service import Layer

TMP_PREFIX = "ljtui-session-"
"""Name prefix of the private temp dirs."""
TMP_LABEL = "a private temp dir"
REPO_LABEL = "this repository"
LAYER_LABEL = "the layer over this repository"
STAGING_LABEL = "the staging tree"

Detect = Callable[[str], SandboxStatus]


class CommandSandbox:
    """The sandbox every command of one session runs in.

    Args:
        repo_root: the repository (commands working elsewhere below it work in a staging tree).
        backend: ``agent.sandbox.backend`` (``auto``, ``landlock``, ``bubblewrap``, ``none``).
        write_paths: ``agent.sandbox.write_paths``: further folders commands may write below.
        network: ``agent.sandbox.network``: the network is on for every command.
        pass_env: ``agent.pass_env``: credential variables commands get anyway.
        detect: finds the backend (tests inject one).
        temp_parent: where the private temp dir is made (default: the system temp dir).
        env: locates the home and ljtui's own folders (default: ``os.environ``).
        layer: the repository's layer (:class:`~ljtui.core.layer.service.Layer`); ``None``: commands work on the
            tree directly.
        read_paths: ``agent.sandbox.read_paths``: further places layered commands may read.
        secrets: the session's secret-file policy: the files it names are hidden from layered commands.

    Raises:
        UnsafeRoot: ``repo_root`` is ``/``, a home folder, or holds or lies inside one of ljtui's own folders.
    """

    def __init__(self, repo_root: Path, backend: str = AUTO, *, write_paths: Iterable[str] = (),
                 network: bool = False, pass_env: Iterable[str] = (), detect: Detect = detect,
                 temp_parent: Path | None = None, env: Mapping[str, str] | None = None,
                 layer: Layer | None = None, read_paths: Iterable[str] = (),
                 secrets: SecretFiles | None = None) -> None:
        self.env = env
        refusal = place_refusal(repo_root, env)
        if refusal is not None:
            raise UnsafeRoot(refusal)
        self.repo_root = Path(os.path.realpath(repo_root))
        self.backend = backend
        self.write_paths = tuple(write_paths)
        self.pass_env = tuple(pass_env)
        self.network_config = network
        self.network_session = False
        """The user granted the network for the rest of the session in a dialog."""
        self._detect = detect
        self._temp_parent = temp_parent
        self._status: SandboxStatus | None = None
        self._tmp: Path | None = None
        self.layer = layer
        """The repository's layer: where it works, commands run in it (unless the user lets one leave the sandbox)."""
        self.read_paths = tuple(read_paths)
        """``agent.sandbox.read_paths``: what layered commands may read besides the toolchains of the home folder."""
        self.secret_view = SecretView(self.repo_root, secrets or SecretFiles())
        """The repository's secret files, hidden from commands in the layer."""
        self._lock = threading.Lock()

    @property
    def status(self) -> SandboxStatus:
        """The backend in use (found, and self-tested, on first use: call from a thread)."""
        with self._lock:
            if self._status is None:
                self._status = self._detect(self.backend)
            return self._status

    @property
    def known_status(self) -> SandboxStatus | None:
        """The backend if it was already found, without finding it."""
        return self._status

    @property
    def confined(self) -> bool:
        """Whether commands run in a sandbox (finds the backend)."""
        return self.status.confined

    @property
    def network(self) -> bool:
        """Whether commands get the network without asking for it."""
        return self.network_config or self.network_session

    @property
    def tmp_dir(self) -> Path:
        """The session's private temp dir (made on first use)."""
        with self._lock:
            if self._tmp is None or not self._tmp.is_dir():
                parent = str(self._temp_parent) if self._temp_parent is not None else None
                self._tmp = Path(os.path.realpath(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=parent)))
                weakref.finalize(self, _remove_tree, self._tmp)  # a session never closed leaves nothing behind
            return self._tmp

    def extra_places(self) -> tuple[Place, ...]:
        """The user's ``agent.sandbox.write_paths`` that exist, as places; those :meth:`refused_write_paths`
        names are left out."""
        places = []
        for text in self.write_paths:
            path = Path(os.path.expanduser(text))
            if path.is_absolute() and path.exists() and place_refusal(path, self.env) is None:
                places.append(Place(Path(os.path.realpath(path)), str(path)))
        return tuple(places)

    def missing_write_paths(self) -> list[str]:
        """``agent.sandbox.write_paths`` entries that are ignored (not absolute, or missing)."""
        return [t for t in self.write_paths
                if not (Path(os.path.expanduser(t)).is_absolute() and Path(os.path.expanduser(t)).exists())]

    def refused_write_paths(self) -> list[tuple[str, str]]:
        """``agent.sandbox.write_paths`` entries left out because commands may never write there, each with why
        (``holds ljtui's config folder (…)``)."""
        refused = []
        for text in self.write_paths:
            path = Path(os.path.expanduser(text))
            if path.is_absolute() and path.exists():
                refusal = place_refusal(path, self.env)
                if refusal is not None:
                    refused.append((text, refusal.reason))
        return refused

    def rules(self, cwd: Path, *, network: bool | None = None, layered: bool = False) -> Rules:
        """The rules of a command working in ``cwd``: writes below ``cwd`` (the repository, a staging tree
        inside it, or an MCP server's own folder), the private temp dir and the user's write paths
        (``network``: ``None`` means the session's setting; ``layered``: a command that runs in the layer, whose
        repository place is the layer's). A folder commands may never write
        (:func:`~ljtui.core.session_root.place_refusal`) is left out, whoever asked for it.
        Finds the backend on first use: call from a thread."""
        status = self.status
        real = Path(os.path.realpath(cwd))
        label = REPO_LABEL if real == self.repo_root else STAGING_LABEL if self.repo_root in real.parents else str(real)
        if label == REPO_LABEL and layered and self.layered:
            label = LAYER_LABEL
        own = (Place(real, label), Place(self.tmp_dir, TMP_LABEL))
        places = (*(p for p in own if place_refusal(p.path, self.env) is None), *self.extra_places())
        return Rules(places, self.network if network is None else network, status.network_enforced)

    def environment(self, secrets: Iterable[str] = (), extra: dict[str, str] | None = None) -> dict[str, str]:
        """A command's environment: ljtui's without keys or credentials (but ``agent.pass_env``), plus ``extra``."""
        return {**child_env(secrets=secrets, pass_env=self.pass_env), **(extra or {})}

    @property
    def layered(self) -> bool:
        """Whether commands run in the repository's layer (probes it on first use: call from a thread)."""
        return self.layer is not None and self.layer.status.layered

    def layered_at(self, cwd: Path) -> bool:
        """Whether a command working in ``cwd`` runs in the layer: the session has one and ``cwd`` is the
        repository (a gate's staging tree is a folder of its own)."""
        return self.layered and Path(os.path.realpath(cwd)) == self.repo_root

    def home_view(self) -> HomeView:
        """What a layered command sees of the home folder (the toolchains, and ``read_paths``)."""
        return home_view(self.env, self.read_paths, self.repo_root)

    def hidden_secrets(self) -> tuple[str, ...] | None:
        """The secret files a layered command gets unreadable placeholders over (``None``: they could not all be
        found, so a command must be asked for). Disk and process work: call from a thread."""
        return self.secret_view.paths(self.layer.place.upper if self.layer is not None else None)

    def confinement(self, rules: Rules, *, unconfined: bool = False, layered: bool = False,
                    hidden: tuple[str, ...] = ()) -> Confinement:
        """How to start a command under ``rules``: ``layered`` (a ``bash`` command) in the layer where there is one
        and the command works in the repository, ``hidden`` (:meth:`hidden_secrets`) unreadable there;
        ``unconfined`` (only when the user chose it for this one) runs it on the tree with the user's full rights."""
        status = self.status
        if unconfined:
            if status.confined:
                status = SandboxStatus(NONE, "you allowed this one command without the sandbox", status.abi)
            return Confinement(status, rules, self.tmp_dir)
        if layered and self.layer is not None and any(place.label == LAYER_LABEL for place in rules.places):
            args = self.layer.command_args(self.home_view())
            if hidden:
                args = (*args, *hiding_args(self.repo_root, hidden, placeholder(self.layer.place.folder)))
            return Confinement(status, rules, self.tmp_dir, layer=args, layer_root=self.repo_root, hidden=hidden)
        return Confinement(status, rules, self.tmp_dir)

    def close(self) -> None:
        """Remove the private temp dir and everything commands left in it."""
        with self._lock:
            tmp, self._tmp = self._tmp, None
        if tmp is not None:
            _remove_tree(tmp)


def _remove_tree(path: Path) -> None:
    """Remove ``path``; a command may have left folders without permissions in it: those are opened first."""
    for folder, subfolders, _files in os.walk(path):
        for name in subfolders:
            child = os.path.join(folder, name)
            if not os.path.islink(child):
                try:
                    os.chmod(child, 0o700)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=True)
