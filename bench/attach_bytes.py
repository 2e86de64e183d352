"""Request bytes for a 3 MB ``@file``: before (the whole file, every request) ÷ after (capped).

A 3,000,000-byte log (30,000 lines of 100 bytes) is attached with ``summarise @big.log``;
the figure is the size of the Anthropic request body edgar sends for that turn, as
``AnthropicProvider.body`` builds it: before, the whole file as the ``@file`` text (what
``attach.at_paths`` sent until issue 25); after, what it attaches now (the first 256 KB, cut at
a line end, with the note saying where to read on). The same body is re-sent, as the
conversation's prefix, with every later request of the session, so the ratio holds per request.

    python bench/attach_bytes.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def body_bytes(attachments: list) -> int:
    from edgar.config import ProviderSettings
    from edgar.core.loop import user_message
    from edgar.providers.anthropic import AnthropicProvider
    from edgar.providers.base import ModelRequest

    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-bench-not-a-key")
    provider = AnthropicProvider("claude-sonnet-5-5", ProviderSettings())
    message = user_message("summarise @big.log", attachments)
    request = ModelRequest(system="You are edgar.", messages=[message])
    return len(json.dumps(provider.body(request)).encode())


def main() -> int:
    from edgar.cli.attach import ATTACH_MAX_BYTES, at_paths

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        big = root / "big.log"
        big.write_text(("x" * 99 + "\n") * 30_000)
        before = body_bytes([("@big.log", big.read_bytes().decode("utf-8", "replace"))])
        after = body_bytes(at_paths("summarise @big.log", root, root))
    print(f"file: 3,000,000 bytes; "
          f"cap {ATTACH_MAX_BYTES // 1024} KB")
    print(f"request bytes before: {before:,}")
    print(f"request bytes after:  {after:,}")
    print(f"before ÷ after: {before / after:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
