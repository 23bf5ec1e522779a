"""The playbook libraries on disk (PB-1): the repository's ``.agent/playbooks`` and the user's own.

* ``repository``: ``.agent/playbooks/<id>.md``, reached only through
  :mod:`ljtui.core.statedir` (never through a symbolic link); a linked
  file or folder is refused with a warning. Its playbooks become
  instructions to the model, so they are offered to it only when the user
  trusts the repository; reading them through ``ljtui playbook`` and
  ``/playbook`` works anyway.
* ``user``: ``playbooks/`` in the user's config dir (trusted, the user's own).

Every file is untrusted input: bounded in size, parsed by
:func:`~ljtui.core.playbooks.model.parse_playbook`, and a file that fails is
skipped with a warning naming the file and the field; loading never raises.
Writes are atomic (a temp file in the same folder, fsync, rename) and every
read-modify-write holds the library's lock, so two sessions never lose each
other's feedback.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets as random_names
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping

from ljtui.core.playbooks.model import MAX_FILE_BYTES, Playbook, PlaybookError, parse_playbook, render_playbook
from ljtui.core.statedir import AGENT_DIR, StateDirUnsafe, open_state_file, read_regular, state_dir
from ljtui.core.userdirs import user_config_dir

REPOSITORY, USER_LIBRARY = "repository", "user"
"""Where a playbook was found."""
PLAYBOOKS_DIR = "playbooks"
"""The folder name below ``.agent`` and in the user's config dir."""
SUFFIX = ".md"
LOCK_NAME = ".lock"
"""The library's lock file (hidden entries are never read as playbooks)."""
GITIGNORE = ".gitignore"
GITIGNORE_TEXT = f"{GITIGNORE}\n{LOCK_NAME}\n.*.tmp\n"
"""What git ignores in ``.agent/playbooks``: ljtui's own lock and temp files, and this file; never a playbook."""
PLAYBOOK_FILE_MODE = 0o644
"""Mode of a written playbook: Markdown meant to be read, diffed and shared."""
MAX_PLAYBOOKS = 256
"""At most this many playbooks are read from one library (the first by file name)."""
MAX_SCANNED_ENTRIES = 4096
"""A library folder is listed up to this many entries."""
REPOSITORY_SHOWN = f"{AGENT_DIR}/{PLAYBOOKS_DIR}"
TRUST_NOTICE = ("{count} repository playbook(s) in .agent/playbooks are not offered to the model because this "
                "repository is not trusted; `ljtui trust` enables them (`ljtui playbook list` reads them anyway)")


class PlaybookStoreError(Exception):
    """A playbook could not be read or written; the message says which and why."""


@dataclass
class Library:
    """The playbooks that could be read, and what the user should be told about the rest.

    Attributes:
        playbooks: Repository playbooks first, then the user's, each sorted by id.
        warnings: One line per skipped file or refused folder.
        hidden: Repository playbooks left out because the repository is not trusted.
    """

    playbooks: list[Playbook] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    hidden: int = 0

    def get(self, playbook_id: str) -> Playbook | None:
        """The playbook with ``playbook_id`` (the repository's when both libraries have one)."""
        return next((p for p in self.playbooks if p.id == playbook_id), None)


class PlaybookStore:
    """Both libraries of one repository for one user."""

    def __init__(self, root: Path | None, env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.env = env
        self.user_dir = user_config_dir(env) / PLAYBOOKS_DIR

    def trusted(self) -> bool:
        """Whether the user trusts the repository (its playbooks may be offered to the model)."""
        if self.root is None:
            return False
        from ljtui.core.trust import TrustStore

        return TrustStore.for_env(self.env).is_trusted(self.root)

    def load(self, *, for_model: bool) -> Library:
        """Every readable playbook; with ``for_model`` the repository's only when it is trusted."""
        library = Library()
        repository: list[Playbook] = []
        if self.root is not None:
            repository = self._read_library(REPOSITORY, library)
            if repository and for_model and not self.trusted():
                library.hidden = len(repository)
                library.warnings.append(TRUST_NOTICE.format(count=len(repository)))
                repository = []
        ids = {p.id for p in repository}
        users = self._read_library(USER_LIBRARY, library)
        for playbook in users:
            if playbook.id in ids:
                library.warnings.append(f"user playbook {self._shown(USER_LIBRARY, playbook.id)} has the same id as "
                                        f"the repository's; the repository's is used")
        library.playbooks = repository + [p for p in users if p.id not in ids]
        return library

    def taken_ids(self) -> set[str]:
        """Every id a file uses in either library (valid or not), so a new id never overwrites one."""
        taken: set[str] = set()
        for source in (REPOSITORY, USER_LIBRARY):
            try:
                taken.update(name[:-len(SUFFIX)] for name, _ in self._entries(source))
            except (OSError, StateDirUnsafe):
                continue
        return taken

    def read(self, source: str, playbook_id: str) -> Playbook:
        """One playbook, read again from its file.

        Raises:
            PlaybookStoreError: it cannot be read or is not valid.
        """
        name = f"{playbook_id}{SUFFIX}"
        shown = self._shown(source, playbook_id)
        try:
            raw = self._read_bytes(source, name)
        except FileNotFoundError:
            raise PlaybookStoreError(f"{shown} does not exist") from None
        except StateDirUnsafe as exc:
            raise PlaybookStoreError(exc.message) from None
        except OSError as exc:
            raise PlaybookStoreError(f"{shown} cannot be read ({exc.strerror or type(exc).__name__})") from None
        try:
            playbook, _notes = _parse(raw, playbook_id)
        except PlaybookError as exc:
            raise PlaybookStoreError(f"{shown}: {exc}") from None
        return playbook.with_changes(source=source)

    def write(self, source: str, playbook: Playbook) -> Path:
        """Write ``playbook`` atomically to its library; the file's path.

        Raises:
            PlaybookStoreError: it could not be written (nothing half-written is left).
        """
        data = render_playbook(playbook).encode("utf-8")
        name = f"{playbook.id}{SUFFIX}"
        try:
            if source == REPOSITORY:
                return self._write_repository(name, data)
            return self._write_user(name, data)
        except StateDirUnsafe as exc:
            raise PlaybookStoreError(exc.message) from None
        except OSError as exc:
            raise PlaybookStoreError(f"{self._shown(source, playbook.id)} cannot be written "
                                     f"({exc.strerror or type(exc).__name__})") from None

    @contextlib.contextmanager
    def locked(self, source: str) -> Iterator[None]:
        """Hold the library's exclusive lock (released by the kernel if the process dies).

        Raises:
            PlaybookStoreError: the lock file cannot be opened.
        """
        try:
            if source == REPOSITORY:
                fd = open_state_file(self._root(), PLAYBOOKS_DIR, LOCK_NAME, flags=os.O_RDWR | os.O_CREAT)
                self._ignore_own_files()
            else:
                self.user_dir.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.user_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PLAYBOOK_FILE_MODE)
        except StateDirUnsafe as exc:
            raise PlaybookStoreError(exc.message) from None
        except OSError as exc:
            raise PlaybookStoreError(f"the {source} playbook library cannot be locked "
                                     f"({exc.strerror or type(exc).__name__})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _ignore_own_files(self) -> None:
        """A ``.gitignore`` in the repository's library for the lock and temp files (the playbooks stay shareable)."""
        try:
            fd = open_state_file(self._root(), PLAYBOOKS_DIR, GITIGNORE,
                                 flags=os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode=PLAYBOOK_FILE_MODE)
        except FileExistsError:
            return
        try:
            _write_all(fd, GITIGNORE_TEXT.encode("utf-8"))
        finally:
            os.close(fd)

    def update(self, source: str, playbook_id: str, change: Callable[[Playbook], Playbook]) -> tuple[Playbook,
                                                                                                     Playbook]:
        """Read, change and write one playbook under the library's lock; ``(before, after)``.

        Raises:
            PlaybookStoreError: it cannot be read, is not valid, or cannot be written.
        """
        with self.locked(source):
            before = self.read(source, playbook_id)
            after = change(before)
            self.write(source, after)
        return before, after

    def path_of(self, source: str, playbook_id: str) -> str:
        """How the user sees a playbook's file: repository ones relative to the repository."""
        return self._shown(source, playbook_id)

    # --- reading ---------------------------------------------------------------------------

    def _root(self) -> Path:
        if self.root is None:
            raise PlaybookStoreError("there is no repository here, so there is no repository playbook library")
        return self.root

    def _shown(self, source: str, playbook_id: str) -> str:
        folder = REPOSITORY_SHOWN if source == REPOSITORY else str(self.user_dir)
        return f"{folder}/{playbook_id}{SUFFIX}"

    def _read_library(self, source: str, library: Library) -> list[Playbook]:
        shown = REPOSITORY_SHOWN if source == REPOSITORY else str(self.user_dir)
        try:
            entries = self._entries(source)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except StateDirUnsafe as exc:
            library.warnings.append(f"repository playbooks refused: {exc.message}")
            return []
        except OSError as exc:
            library.warnings.append(f"{source} playbook folder {shown} cannot be read "
                                    f"({exc.strerror or type(exc).__name__})")
            return []
        if len(entries) > MAX_PLAYBOOKS:
            library.warnings.append(f"{source} playbook folder {shown} holds more than {MAX_PLAYBOOKS} playbooks; "
                                    f"only the first {MAX_PLAYBOOKS} by name are read")
            entries = entries[:MAX_PLAYBOOKS]
        found: list[Playbook] = []
        for name, linked in entries:
            label = f"{source} playbook {shown}/{name}"
            if linked:
                library.warnings.append(f"{label} refused: it is a symbolic link, and ljtui reads repository "
                                        f"playbooks only from real files")
                continue
            playbook = self._read_entry(source, name, label, library)
            if playbook is not None:
                found.append(playbook)
        return sorted(found, key=lambda p: p.id)

    def _read_entry(self, source: str, name: str, label: str, library: Library) -> Playbook | None:
        stem = name[:-len(SUFFIX)]
        try:
            raw = self._read_bytes(source, name)
            playbook, notes = _parse(raw, stem)
        except StateDirUnsafe as exc:
            library.warnings.append(f"{label} refused: {exc.problem}")
            return None
        except OSError as exc:
            library.warnings.append(f"{label}: cannot be read ({exc.strerror or type(exc).__name__}); skipped")
            return None
        except PlaybookError as exc:
            library.warnings.append(f"{label}: {exc}; skipped")
            return None
        library.warnings.extend(f"{label}: {note}" for note in notes)
        return playbook.with_changes(source=source)

    def _entries(self, source: str) -> list[tuple[str, bool]]:
        """``(file name, is a symbolic link)`` of the ``*.md`` entries of a library, sorted by name."""
        if source == REPOSITORY:
            folder, follow = state_dir(self._root(), PLAYBOOKS_DIR, create=False), False
        else:
            folder, follow = self.user_dir, True
        out: list[tuple[str, bool]] = []
        with os.scandir(folder) as listing:
            for count, entry in enumerate(listing):
                if count >= MAX_SCANNED_ENTRIES:
                    break
                if entry.name.startswith(".") or not entry.name.endswith(SUFFIX) or len(entry.name) == len(SUFFIX):
                    continue
                linked = not follow and entry.is_symlink()
                if linked or entry.is_file(follow_symlinks=follow):
                    out.append((entry.name, linked))
        return sorted(out)

    def _read_bytes(self, source: str, name: str) -> bytes:
        if source == REPOSITORY:
            fd = open_state_file(self._root(), PLAYBOOKS_DIR, name, flags=os.O_RDONLY)
        else:
            fd = os.open(self.user_dir / name, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        return read_regular(fd, MAX_FILE_BYTES + 1)

    # --- writing ---------------------------------------------------------------------------

    def _write_repository(self, name: str, data: bytes) -> Path:
        root = self._root()
        folder = state_dir(root, PLAYBOOKS_DIR, create=True)
        temporary = f".{name}.{os.getpid()}.{random_names.token_hex(4)}.tmp"
        fd = open_state_file(root, PLAYBOOKS_DIR, temporary, flags=os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                             mode=PLAYBOOK_FILE_MODE)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        try:
            os.replace(folder / temporary, folder / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(folder / temporary)
            raise
        return folder / name

    def _write_user(self, name: str, data: bytes) -> Path:
        self.user_dir.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=self.user_dir)
        try:
            os.fchmod(fd, PLAYBOOK_FILE_MODE)
            _write_all(fd, data)
            os.close(fd)
            fd = -1
            os.replace(temporary, self.user_dir / name)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            Path(temporary).unlink(missing_ok=True)
            raise
        return self.user_dir / name


def _parse(raw: bytes, stem: str) -> tuple[Playbook, tuple[str, ...]]:
    if len(raw) > MAX_FILE_BYTES:
        raise PlaybookError("file", f"larger than {MAX_FILE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PlaybookError("file", "not UTF-8 text") from None
    return parse_playbook(text, stem)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)
