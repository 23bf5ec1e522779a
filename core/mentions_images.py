"""Images the user attaches (``@shot.png``, or a pasted image path): which models take them, and reading one.

Whether a model takes images is ``provider.images`` when set, else known by
provider and model family (:data:`IMAGE_MODELS`): Claude 3 and later, the
GPT-4o, 4.1 and 5 families, o3/o4, and local vision models (LLaVA, Qwen-VL,
Gemma 3, Llama 3.2 Vision, Pixtral, MiniCPM-V, Moondream …). The scripted
provider takes them only when ``provider.images`` says so.

An image is read whole (at most :data:`MAX_IMAGE_BYTES`), and only when its
first bytes are those of the type its name says.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from ljtui.core.providers.base import ImageBlock

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Largest image attached (the Anthropic API's limit per image)."""
MEDIA_TYPES: dict[str, str] = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                               ".gif": "image/gif", ".webp": "image/webp"}
"""Image file suffixes (any case) and the media type each is sent as."""
IMAGES_KEY = "provider.images"
IMAGE_MODELS = re.compile(
    r"claude-([a-z]+-)?[3-9]|gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|chatgpt-4o|(^|/)o3(?!-mini)|(^|/)o4|llava|"
    r"qwen[\d.]*-?vl|qwen2\.5-omni|gemma-?3|llama-?3\.2-vision|llama-?4|pixtral|minicpm-v|moondream|"
    r"mistral-small-3|granite3?\.?2?-vision|internvl|phi-?[34].*vision|vision",
    re.IGNORECASE)
"""Model names (any part) of families known to take images."""


@dataclass(frozen=True)
class ImageRead:
    """One image read for a message, or why it was not."""

    block: ImageBlock | None
    problem: str = ""
    size: int = 0


def is_image_name(path: str) -> bool:
    """Whether ``path`` names an image by its suffix."""
    return Path(path).suffix.lower() in MEDIA_TYPES


def pasted_image(text: str) -> str | None:
    """The image path a paste is, or ``None``: one line, an absolute, ``~`` or ``file://`` path (quoted, or with
    ``\\ `` escapes, as terminals paste a dropped file) whose name is a png, jpeg, gif or webp image."""
    line = text.strip()
    if "\n" in line:
        return None
    if len(line) >= 2 and line[0] == line[-1] and line[0] in "'\"":
        line = line[1:-1]
    if line.startswith("file://"):
        line = unquote(line[len("file://"):])
    line = line.replace("\\ ", " ")
    if not line.startswith(("/", "~/")) or not is_image_name(line):
        return None
    return line


def takes_images(provider: str, model: str, setting: bool | None) -> bool:
    """Whether ``model`` of ``provider`` takes images; ``setting`` is ``provider.images`` (``None``: unset)."""
    if setting is not None:
        return setting
    if provider == "scripted":
        return False
    return IMAGE_MODELS.search(model) is not None


def refusal(provider: str, model: str) -> str:
    """What the user reads when the model in use does not take images."""
    return (f"Not sent: the model {model!r} ({provider}) is not known to take images. Remove the image, "
            f"switch to a model that takes them, or set {IMAGES_KEY}: true if this one does. Your message "
            "is still in the prompt.")


def read_image(path: Path, shown: str) -> ImageRead:
    """The image at ``path`` (``shown`` in messages) as a block, or why it cannot be attached."""
    media_type = MEDIA_TYPES.get(path.suffix.lower())
    if media_type is None:
        return ImageRead(None, f"{shown}: not a png, jpeg, gif or webp image")
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            return ImageRead(None, f"{shown}: {_mb(size)} is more than the {_mb(MAX_IMAGE_BYTES)} an image may be",
                             size)
        with path.open("rb") as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
    except OSError as exc:
        return ImageRead(None, f"{shown}: cannot be read ({exc.strerror or type(exc).__name__})")
    if len(data) > MAX_IMAGE_BYTES:
        return ImageRead(None, f"{shown}: more than the {_mb(MAX_IMAGE_BYTES)} an image may be", len(data))
    if _sniffed(data) != media_type:
        return ImageRead(None, f"{shown}: its contents are not a {media_type.split('/')[1]} image", len(data))
    return ImageRead(ImageBlock(media_type, base64.b64encode(data).decode("ascii"), shown), size=len(data))


def _sniffed(data: bytes) -> str | None:
    """The media type the first bytes of ``data`` show, if one of :data:`MEDIA_TYPES`."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"
