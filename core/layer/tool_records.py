"""What the layer's tools give back besides tool results: small frozen records with the attributes the tools read
(:mod:`.tools`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ljtui.core.layer.host_protocol import decode_bytes


@dataclass(frozen=True)
class LayerOutlineView:
    """A file's, folder's or the repository's outline in the layer.

    Attributes:
        text: what the tool shows.
        error: why nothing could be shown (``""`` when all is well).
        symbols: the definitions shown, each ``path:line qualname``.
    """

    text: str
    error: str = ""
    symbols: tuple[str, ...] = ()


@dataclass(frozen=True)
class LayerSymbolMatches:
    """What ``find_symbol`` found in the layer.

    Attributes:
        text: what the tool shows.
        error: why the search could not run (``""`` when it did).
        matches: best first, each ``path:line qualname``.
    """

    text: str
    error: str = ""
    matches: tuple[str, ...] = ()


@dataclass(frozen=True)
class LayerPrepared:
    """A write worked out in the layer, not written: what a dialog shows, and what :meth:`LayerTools.commit_write`
    sends back.

    Attributes:
        tool: the write tool.
        path: the file or folder, repository-relative, as it resolved.
        title: the dialog's question.
        lines: what the dialog shows (the diff, or the folder made).
        diff_path: the file when ``lines`` are its diff.
        before_hash: the hash of the bytes the write was worked out on (``absent``: no file).
        asked: the path as the model wrote it.
        after: the bytes the write puts there.
        notes: told to the model after the write.
    """

    tool: str
    path: str
    title: str
    lines: tuple[str, ...]
    diff_path: str | None
    before_hash: str
    asked: str
    after: bytes | None
    notes: tuple[str, ...] = ()


def prepared_of(data: Any) -> LayerPrepared:
    """A prepared write read back from the host's answer.

    Raises:
        KeyError, TypeError, ValueError: the answer is malformed.
    """
    if not isinstance(data, dict):
        raise ValueError("the host's prepared write is malformed")
    diff_path = data.get("diff_path")
    return LayerPrepared(str(data["tool"]), str(data["path"]), str(data["title"]), tuple(map(str, data["lines"])),
                         str(diff_path) if diff_path is not None else None, str(data["before_hash"]),
                         str(data["asked"]), decode_bytes(data.get("after")), tuple(map(str, data["notes"])))
