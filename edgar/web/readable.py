"""A fetched page as text the model can read: HTML as Markdown, other text as it is.

Guarantees:
- HTML becomes Markdown through html-to-markdown (ADR-0107; imported on the first HTML page,
  never at start-up), without scripts, styles, SVG, images or navigation; text, JSON, XML
  and Markdown are decoded as they are (the page's charset, else UTF-8, bad bytes replaced).
- ``focus(text, prompt, limit)``: text within ``limit`` characters is returned whole; a
  longer one is cut to the sections (blank-line separated) that share the most words with
  ``prompt``, kept in page order, and says how much was left out — no model call. Without a
  prompt, the head and tail are kept. Pure.
"""

from __future__ import annotations

import re

TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml",
              "application/javascript", "application/ld+json", "application/x-yaml")
_STRIP = ["script", "style", "svg", "nav", "noscript", "iframe", "form", "button"]


def is_text(content_type: str) -> bool:
    return content_type.startswith(TEXT_TYPES) or content_type.endswith(("+json", "+xml"))


def decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", "replace")
    except LookupError:
        return body.decode("utf-8", "replace")


def markdown(html: str) -> str:
    """``html`` as Markdown, the page's chrome left out."""
    import html_to_markdown as h2m

    options = h2m.ConversionOptions(skip_images=True, heading_style="atx",
                                    strip_tags=_STRIP, extract_metadata=False)
    result = h2m.convert(html, options)
    text = result if isinstance(result, str) else result.content
    return re.sub(r"\n{3,}", "\n\n", text or "").strip()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9_]{3,}", text.lower()))


def focus(text: str, prompt: str | None, limit: int) -> str:
    """``text`` within ``limit`` characters, the parts ``prompt`` asks about first."""
    if len(text) <= limit:
        return text
    if not prompt or not _words(prompt):
        head, tail = text[: limit * 3 // 4], text[-(limit // 4):]
        return (f"{head}\n\n[… {len(text) - len(head) - len(tail):,} of {len(text):,} characters "
                f"left out; give web_fetch a prompt to pick the parts you need …]\n\n{tail}")
    wanted = _words(prompt)
    sections = [s for s in re.split(r"\n\s*\n", text) if s.strip()]
    ranked = sorted(range(len(sections)),
                    key=lambda i: (-len(wanted & _words(sections[i])), i))
    keep: set[int] = set()
    used = 0
    for i in ranked:
        if used + len(sections[i]) + 2 > limit:
            continue
        keep.add(i)
        used += len(sections[i]) + 2
    kept = [sections[i] for i in sorted(keep)]
    left = len(sections) - len(kept)
    return ("\n\n".join(kept) + f"\n\n[… {left} of {len(sections)} sections left out: those "
            f"sharing the fewest words with the prompt]")
