"""Image bytes as a block the model sees: PNG, JPEG, GIF and WebP, within the providers' limits.

Guarantees:
- ``kind(head)`` names the image type from the file's first bytes (their magic numbers), or
  None: a name ending in ``.png`` is never trusted.
- ``to_block(data, source)`` returns an ``ImageBlock`` whose base64 is at most
  ``MAX_BASE64`` characters (Anthropic's 5 MB limit, which it counts on the base64 text) and
  whose sides are at most ``MAX_SIDE`` pixels (Anthropic's limit for requests with many
  images, OpenAI's high-detail size), with ``note`` saying what was done to it ("resized
  from 4000×3000 to 2000×1500"). An image that cannot be decoded, a decompression bomb, or
  one that cannot be brought under the limits raises ``ImageRefused`` with one line saying
  why: nothing is ever sent as text in its place.
- Decoding, measuring and resizing are Pillow's (ADR-0105), imported on the first image a
  session meets, never at start-up.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from edgar.conversation import ImageBlock

MAX_SIDE = 2000                   # pixels, either side
MAX_BASE64 = 5 * 1024 * 1024      # characters of base64 (Anthropic: "image exceeds 5 MB maximum")
MAX_PIXELS = 64_000_000           # more than this to decode is refused (a decompression bomb)
MAX_FILE = 64 * 1024 * 1024       # bytes read from a file for one image
SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


class ImageRefused(Exception):
    """An image that is not sent; the message is one line saying why."""


@dataclass(frozen=True)
class Prepared:
    """An image ready for the model, and what was done to get it there (None: nothing)."""

    block: ImageBlock
    note: str | None


def kind(head: bytes) -> str | None:
    """The media type the first bytes of a file announce, if it is one of the four."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def describe(block: ImageBlock) -> str:
    """One line for a person (and for the Attached event): what the image is."""
    size = len(block.data) * 3 // 4
    shown = f"{size / 1024:.0f} KB" if size < 1024 * 1024 else f"{size / 2**20:.1f} MB"
    return (f"[image {block.source}: {block.media_type}, {block.width}×{block.height}, "
            f"{shown}]")


def to_block(data: bytes, source: str) -> Prepared:
    """``data`` (a whole image file) as an ``ImageBlock`` within the limits."""
    import warnings

    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageRefused(f"{source}: the image is too large to decode safely (over "
                           f"{MAX_PIXELS // 1_000_000} million pixels); not sent") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise ImageRefused(f"{source}: not a readable image ({type(exc).__name__}); "
                           "not sent") from None
    media = _FORMATS.get(image.format or "")
    if media is None:
        raise ImageRefused(f"{source}: a {image.format or 'unknown'} image; only PNG, JPEG, "
                           "GIF and WebP are sent to the model")
    width, height = image.size
    encoded = base64.b64encode(data).decode("ascii")
    if max(width, height) <= MAX_SIDE and len(encoded) <= MAX_BASE64:
        return Prepared(ImageBlock(media, encoded, source, width, height), None)
    return _shrunk(image, media, source, len(data))


def _shrunk(image, media: str, source: str, size: int) -> Prepared:
    """Scaled to fit ``MAX_SIDE``, re-encoded until its base64 fits ``MAX_BASE64``."""
    from PIL import Image

    width, height = image.size
    scale = min(1.0, MAX_SIDE / max(width, height))
    keep_png = media in ("image/png", "image/gif")   # screenshots, diagrams: keep them sharp
    for attempt in range(6):
        w, h = max(1, round(width * scale)), max(1, round(height * scale))
        frame = image.convert("RGBA" if keep_png else "RGB") if image.mode not in (
            "RGB", "RGBA", "L") else image
        resized = frame.resize((w, h), Image.Resampling.LANCZOS) if (w, h) != image.size else frame
        out = io.BytesIO()
        if keep_png:
            resized.save(out, "PNG", optimize=True)
            media_out = "image/png"
        else:
            resized.convert("RGB").save(out, "JPEG", quality=85 - 10 * min(attempt, 3))
            media_out = "image/jpeg"
        encoded = base64.b64encode(out.getvalue()).decode("ascii")
        if len(encoded) <= MAX_BASE64:
            note = (f"{source}: resized from {width}×{height} ({size / 2**20:.1f} MB) to {w}×{h} "
                    f"({len(encoded) * 3 // 4 / 2**20:.1f} MB) to fit the model's limits "
                    f"({MAX_SIDE} px a side, 5 MB)")
            return Prepared(ImageBlock(media_out, encoded, source, w, h), note)
        if keep_png:
            keep_png = False   # a PNG that will not fit goes as a JPEG
        else:
            scale *= 0.7
    raise ImageRefused(f"{source}: could not bring the image under the model's limits "
                       f"({MAX_SIDE} px a side, 5 MB); not sent")


def read_file(path: str, shown_as: str) -> bytes:
    """An image file's bytes (refused past ``MAX_FILE``)."""
    import os

    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > MAX_FILE:
            raise ImageRefused(f"{shown_as}: over {MAX_FILE // 2**20} MB; not sent")
        return handle.read(MAX_FILE + 1)
