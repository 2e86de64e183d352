"""A commit message written by the model (``[git] commit_message = "model"``, ADR-0111).

Guarantees:
- Only when configured: the ``Committer`` calls ``write`` once per commit it makes, never
  otherwise; with the default (``"summary"``) no model is called (design §3.7).
- The request is one user message: what the person asked (first line) and the commit's diff,
  redacted by the caller and cut to ``DIFF_MAX`` characters here (the cut said in the
  request); no tools, no history, ``MAX_TOKENS`` of output.
- The call goes through ``core.model_call``, quiet (no text streams as an answer) and at depth
  1 (no step of the conversation): it is billed to the session's usage and cost, never a
  turn's, never learned, never a fact, never part of the conversation.
- ``parse`` (pure) accepts a subject line and an optional short body and nothing else: an
  empty answer, a fence or a diff as the subject, or a subject far longer than a subject
  line is None (garbage), and the caller falls back to the summary message. Lines that
  look like edgar's trailers are dropped from the body (``compose`` adds the real ones).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgar.conversation import Message, TextBlock
from edgar.core import commit_message as msg
from edgar.core.model_call import model_call
from edgar.core.views import CallView
from edgar.events import Where
from edgar.providers.base import ModelRequest

DIFF_MAX = 24_000      # characters of the diff sent; the rest is named, not sent
MAX_TOKENS = 400       # a subject and a short body
BODY_LINES = 8
BODY_MAX = 600         # characters of body kept
SUBJECT_LIMIT = 120    # a first line longer than this is not a subject line: garbage

SYSTEM = ("You write git commit messages. Reply with the message only: a subject line in the "
          "imperative of at most 72 characters, then a blank line and at most three short "
          "lines saying what changed and why. No code fences, no quotes around it, no "
          "trailers, no sign-off, nothing else.")

_LABEL = re.compile(r"^(?:commit message|subject|title)\s*:\s*", re.IGNORECASE)
_TRAILER = re.compile(r"^(?:edgar-[a-z-]+|signed-off-by|co-authored-by)\s*:", re.IGNORECASE)
_NOT_SUBJECT = ("```", "diff --git", "--- ", "+++ ", "@@ ", "<")


@dataclass(frozen=True)
class Written:
    """The model's message, parsed: a subject line and a body (possibly empty)."""

    subject: str
    body: str


def clip_diff(diff: str, limit: int = DIFF_MAX) -> str:
    """``diff`` whole when it fits, else its first ``limit`` characters and how much was cut."""
    if len(diff) <= limit:
        return diff
    cut = diff[:limit].rsplit("\n", 1)[0]
    return f"{cut}\n… ({len(diff) - len(cut)} more characters of the diff not shown)\n"


def ask(prompt: str, diff: str) -> str:
    """The one user message: the person's request and the (already redacted) diff."""
    asked = msg.one_line(prompt)
    said = f"The person asked: {asked}\n\n" if asked and not asked.startswith("/") else ""
    return f"{said}Write the commit message for this change.\n\n<diff>\n{clip_diff(diff)}</diff>"


def request(prompt: str, diff: str) -> ModelRequest:
    return ModelRequest(system=SYSTEM, messages=[Message("user", [TextBlock(ask(prompt, diff))])],
                        tools=[], max_tokens=MAX_TOKENS)


def _unwrap(text: str) -> str:
    """An answer wrapped whole in one code fence: what is inside it."""
    lines = text.strip().splitlines()
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        return "\n".join(lines[1:-1])
    return text


def parse(answer: str) -> Written | None:
    """The model's answer as a subject and a body; None when it is not a commit message."""
    lines = [line.rstrip() for line in _unwrap(answer).strip().splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return None
    first = _LABEL.sub("", lines[0].strip()).strip().strip("\"'`").strip()
    subject = msg.one_line(first)
    if (not subject or len(subject) > SUBJECT_LIMIT or subject.startswith(_NOT_SUBJECT)
            or _TRAILER.match(subject)):
        return None
    kept: list[str] = []
    for line in lines[1:]:
        clean = msg.one_line(line) if line.strip() else ""
        if _TRAILER.match(clean) or clean.startswith("```"):
            continue
        kept.append(clean)
    body = "\n".join(kept).strip("\n")
    body = "\n".join(body.splitlines()[:BODY_LINES])
    if len(body) > BODY_MAX:
        body = body[:BODY_MAX].rsplit(" ", 1)[0].rstrip() + " …"
    return Written(msg.clip(subject), body)


@dataclass
class Writer:
    """Writes a commit message with the session's model: one quiet call per commit."""

    session: CallView
    session_id: str

    @property
    def model(self) -> str:
        """The model, as the ``Edgar-Model`` trailer names it (a test script by its provider's
        name, not by its file's path)."""
        provider = self.session.provider
        return provider.name if provider.name == "scripted" else provider.model

    async def write(self, prompt: str, diff: str, turn_id: str) -> Written | None:
        """The model's message for ``diff`` (redacted by the caller), or None when its answer
        is empty or not a message. A ``ProviderError`` propagates: the caller says it."""
        where = Where(session_id=self.session_id, turn_id=turn_id, depth=1)
        response = await model_call(self.session, request(prompt, diff), where, quiet=True)
        return parse(response.text())
