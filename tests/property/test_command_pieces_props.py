"""``custom_commands.pieces``: a command body split into text and ``!`cmd``` pieces."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from edgar.cli.custom_commands import CustomCommand, expand, pieces
from edgar.config.trust import RUNS

chunk = st.one_of(st.text(alphabet="ab !`@\n$x", max_size=12),
                  st.text(alphabet="gits -", min_size=1, max_size=10).map(lambda c: f"!`{c}`"))
bodies = st.lists(chunk, max_size=8).map("".join)


def command(body: str) -> CustomCommand:
    return CustomCommand("c", "", body, Path("c.md"), "project")


@given(bodies)
def test_without_arguments_or_placeholders_the_pieces_are_the_body(body: str) -> None:
    if "$" in body:
        body = body.replace("$", "")
    parts = pieces(command(body), "")
    assert expand(command(body), "") == body
    shells = [text for kind, text in parts if kind == "shell"]
    assert shells == RUNS.findall(body)         # every !`cmd` is one shell piece, in order


@given(bodies, st.text(alphabet="ab c`!\n", max_size=10))
def test_a_shell_piece_is_one_line_without_backticks_unless_typed(body: str, args: str) -> None:
    for kind, text in pieces(command(body), args):
        if kind == "shell" and "$" not in body:
            assert "`" not in text and "\n" not in text


@given(bodies, st.text(alphabet="ab c", min_size=1, max_size=10).filter(str.strip))
def test_arguments_are_always_somewhere_in_the_text(body: str, args: str) -> None:
    body = body.replace("$", "")
    joined = "".join(text for kind, text in pieces(command(body), args.strip()) if kind == "text")
    assert f"ARGUMENTS: {args.strip()}" in joined
