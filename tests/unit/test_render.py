"""Renderers: block splitting of streamed text, the rich renderer's lines, the plain one kept."""

from __future__ import annotations

import io
import re

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from edgar.cli.mdstream import BlockSplitter
from edgar.cli.render import PlainRenderer, RichRenderer, diff_preview, money, tool_line
from edgar.conversation import Usage
from edgar.events import (
    ErrorRecord,
    ModelResponded,
    Notice,
    QueueDelivered,
    TextDelta,
    ToolFinished,
    ToolProposed,
    TurnFinished,
    TurnStarted,
)

ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


def split_all(chunks: list[str]) -> list[str]:
    s = BlockSplitter()
    out: list[str] = []
    for chunk in chunks:
        out += s.feed(chunk)
    return out + s.flush()


def test_prose_is_one_block_per_finished_line():
    s = BlockSplitter()
    assert s.feed("Hello wor") == []
    assert s.feed("ld.\nSecond") == ["Hello world."]
    assert s.pending == "Second"
    assert s.flush() == ["Second"] and s.flush() == []


def test_a_code_fence_is_held_until_it_closes():
    s = BlockSplitter()
    assert s.feed("Look:\n```python\nx = 1\n") == ["Look:"]
    assert s.feed("y = 2\n") == []
    assert s.feed("```\nafter\n") == ["```python\nx = 1\ny = 2\n```", "after"]


def test_a_table_is_one_block_and_an_unclosed_fence_is_flushed():
    assert split_all(["| a | b |\n|---|---|\n", "| 1 | 2 |\n", "done\n"]) == \
        ["| a | b |\n|---|---|\n| 1 | 2 |", "done"]
    assert split_all(["~~~\ncode that was cut"]) == ["~~~\ncode that was cut"]


@given(st.text(alphabet="ab`|~ \n#*-", max_size=200), st.data())
def test_no_text_is_lost_duplicated_or_reordered(text, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    chunks = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    expected = text[:-1] if text.endswith("\n") else text   # the last newline ends a block
    assert "\n".join(split_all(chunks)) == expected


def rich(width: int = 80) -> tuple[RichRenderer, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=width, markup=False, highlight=False,
                      emoji=False, color_system="standard")
    return RichRenderer(console), out


def plain(out: io.StringIO) -> str:
    return ANSI.sub("", out.getvalue())


def test_rich_renders_markdown_per_block_and_a_compact_tool_line():
    r, out = rich()
    r(TurnStarted(model="m"))
    for piece in ["Some **bold** te", "xt.\n- one\n- two\n", "```py\nprint(1)\n```\n", "tail"]:
        r(TextDelta(text=piece))
    assert "tail" not in plain(out)                 # a partial line waits for its end
    r(ToolProposed(call_id="c1", tool="shell", args={"command": "sleep 1"}))
    assert "shell $ sleep 1" in r.activity()         # the status line shows it while it runs
    r(ToolFinished(call_id="c1", tool="shell", ok=False, duration=1.2,
                   error=ErrorRecord("shell", "exit_nonzero", 2, "sleep")))
    r(TurnFinished(outcome="ok", duration=2.0, cost=0.0123, tokens=1500))
    text = plain(out)
    assert "Some bold text." in text and "**" not in text
    assert "• one\n" in text and "• two\n" in text and "\n\n • two" not in text
    assert "print(1)" in text and "```" not in text
    assert "tail\n" in text                          # flushed before the tool line
    assert "✗ shell $ sleep 1 — exit_nonzero (exit 2)  1.2s" in text
    assert "✓ · 2.0s · 1,500 tokens · $0.0123" in text
    assert r.activity() == ""


def test_an_edit_shows_a_diff_before_it_runs():
    r, out = rich()
    r(ToolProposed(call_id="e", tool="edit",
                   args={"path": "a.py", "old_string": "x = 1\ny = 2",
                         "new_string": "x = 1\ny = 3"}))
    text = plain(out)
    assert "✎ edit a.py" in text and "-y = 2" in text and "+y = 3" in text
    assert diff_preview({"old_string": "a", "new_string": "b"}) == ["@@ -1 +1 @@", "-a", "+b"]
    long = diff_preview({"old_string": "\n".join(map(str, range(50))), "new_string": ""})
    assert len(long) == 41 and long[-1].startswith("… ")


def test_an_edit_preview_has_the_file_line_numbers_and_three_lines_of_context(tmp_path):
    (tmp_path / "m.py").write_text("".join(f"v{n} = {n}\n" for n in range(1, 31)))
    rows = diff_preview({"path": "m.py", "old_string": "v20 = 20\n", "new_string": "v20 = 0\n"},
                        root=tmp_path)
    assert rows == ["@@ -17,7 +17,7 @@", " v17 = 17", " v18 = 18", " v19 = 19", "-v20 = 20",
                    "+v20 = 0", " v21 = 21", " v22 = 22", " v23 = 23"]
    outside = diff_preview({"path": "../x", "old_string": "a", "new_string": "b"}, root=tmp_path)
    assert outside == ["@@ -1 +1 @@", "-a", "+b"]      # never reads outside the project


def test_interrupted_turn_keeps_the_partial_line_on_screen():
    r, out = rich()
    r(TextDelta(text="half a sent"))
    r(TurnFinished(outcome="cancelled", duration=0.5, cost=None, tokens=0))
    text = plain(out)
    assert "half a sent\n" in text and "⏹ interrupted" in text and "cost unknown" in text


def test_subagent_text_is_not_streamed_but_its_tools_are_indented():
    r, out = rich()
    r(TextDelta(text="inner words\n", depth=1))
    r(ToolProposed(call_id="s", tool="glob", args={"pattern": "*.py"}, depth=1))
    r(ToolFinished(call_id="s", tool="glob", ok=True, duration=0.01, depth=1))
    text = plain(out)
    assert "inner words" not in text and "    ✓ glob *.py" in text


def test_no_color_means_no_colour_codes():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, no_color=True, markup=False)
    r = RichRenderer(console)
    r(TextDelta(text="# Title\nsome `code` and **bold**\n"))
    r(ToolFinished(call_id="x", tool="read", ok=True))
    r(Notice(level="warning", message="careful"))
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[38;", out.getvalue())


def test_plain_renderer_still_works():
    out = io.StringIO()
    p = PlainRenderer(out)
    p(TextDelta(text="hi"))
    p(ToolProposed(call_id="1", tool="read", args={"path": "a"}))
    p(ToolFinished(call_id="1", tool="read", ok=True, duration=0.1))
    p(QueueDelivered(count=2))
    p(ModelResponded(model="m", usage=Usage()))
    p(TurnFinished(outcome="ok", duration=1, cost=None, tokens=3))
    p.say("a note")
    text = out.getvalue()
    assert "hi\n  → read a\n    ✓ (0.10s)\n" in text and "delivered 2 queued" in text
    assert "cost unknown" in text and text.endswith("a note\n")
    proposed = ToolProposed(call_id="1", tool="shell", args={"command": "ls"})
    assert tool_line(proposed) == "shell $ ls"
    assert money(None) == "cost unknown" and money(0.5) == "$0.5000"


def test_the_repl_modules_load_without_rich_or_prompt_toolkit_until_used():
    """Start-up time: rich is imported when the first block is drawn (or by the warm-up), and
    neither rich nor prompt_toolkit is imported by ``edgar -p`` or ``--version``."""
    import subprocess
    import sys

    code = ("import sys, edgar.cli.render, edgar.cli.repl, edgar.cli.run, edgar.cli.oneshot; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'prompt_toolkit'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_long_paragraph_streams_by_screen_lines_and_loses_nothing():
    from edgar.cli.mdstream import BlockSplitter

    words = [f"w{i}" for i in range(200)]
    splitter, out = BlockSplitter(), []
    for word in words:
        out += splitter.feed(word + " ", wrap=60)
    assert len(out) >= 10 and all(len(block) <= 60 for block in out)   # shown while streaming
    out += splitter.flush()
    assert " ".join(" ".join(out).split()) == " ".join(words)
    listed = BlockSplitter()
    assert listed.feed("- " + "item " * 40, wrap=60) == []             # a list item is whole


def test_the_header_fits_sixty_columns_and_breaks_between_parts():
    from edgar.cli.banner import fit

    parts = ["edgar 0.1.0", "anthropic:claude-sonnet-4-5-20250929", "auto-edit mode"]
    lines = fit(parts, 60)
    assert all(len(line) < 60 for line in lines)
    assert lines == ["edgar 0.1.0 · anthropic:claude-sonnet-4-5-20250929", "auto-edit mode"]
    assert fit(["x" * 100], 60) == ["…" + "x" * 58]
    assert fit(parts, 200) == [" · ".join(parts)]


def test_plain_renderer_sets_steps_apart_by_one_blank_line():
    out = io.StringIO()
    p = PlainRenderer(out)
    p(TurnStarted(model="m"))
    p(TextDelta(text="Reading.\n"))
    p(ModelResponded(model="m", usage=Usage()))
    p(ToolProposed(call_id="1", tool="read", args={"path": "a"}))
    p(ToolFinished(call_id="1", tool="read", ok=True, duration=0.1))
    p(ModelResponded(model="m", usage=Usage()))          # a step with tool calls only
    p(ToolProposed(call_id="2", tool="glob", args={"pattern": "*"}))
    p(ToolFinished(call_id="2", tool="glob", ok=True, duration=0.1))
    p(TextDelta(text="Done.\n\n"))                        # ends blank already: no second one
    p(ModelResponded(model="m", usage=Usage()))
    p(TurnStarted(model="m"))                             # a new turn starts without a gap
    p(TextDelta(text="Next.\n"))
    assert out.getvalue() == ("Reading.\n  → read a\n    ✓ (0.10s)\n\n  → glob *\n    ✓ (0.10s)\n"
                              "\nDone.\n\nNext.\n")
