"""One way to turn a config key into a line: edgar/config/lines.py, and the located errors of
hooks and MCP servers that now use it (they used to name the first line merely mentioning the
key, such as a comment)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from edgar.config.lines import json_line, toml_line
from edgar.hooks.config import load_hooks
from edgar.mcp.config import load_servers, read_mcp_json

LINES = ["[hooks]", "[[hooks.PreToolUse]]", "[mcp.servers.a]", "a = 1", '"a.b" = 2', "# a",
         "[providers.openai]", "max_retries = 3", "x.y = {}", "[", "]", "= =", ""]


@given(st.lists(st.sampled_from(LINES) | st.text(max_size=12), max_size=10),
       st.lists(st.sampled_from(["hooks", "PreToolUse", "mcp", "servers", "a", "b", "x", "y",
                                 "providers", "openai", "max_retries"]), min_size=1, max_size=4))
def test_toml_line_is_none_or_a_line_that_names_a_prefix_of_the_key(lines, loc):
    text = "\n".join(lines)
    number = toml_line(text, tuple(loc))
    assert number is None or 1 <= number <= len(text.splitlines())


def test_toml_line_follows_tables_and_skips_comments_and_other_tables():
    text = ("# see [providers.openai] max_retries = 9 below\n"
            "[providers.anthropic]\nmax_retries = 1\n\n[providers.openai]\nmax_retries = 3\n")
    assert toml_line(text, ("providers", "openai", "max_retries")) == 6
    assert toml_line(text, ("providers", "anthropic", "max_retries")) == 3
    assert toml_line(text, ("providers", "openai", "timeout")) == 5   # its nearest table
    assert toml_line(text, ("web",)) is None


def test_json_line_follows_the_chain_of_keys():
    text = '{\n "env": {"PreToolUse": 1},\n "hooks": {\n  "PreToolUse": []\n }\n}\n'
    assert json_line(text, ("hooks", "PreToolUse")) == 4
    assert json_line(text, ("PreToolUse",)) == 2
    assert json_line(text, ("nowhere",)) == 1


def test_a_wrong_hook_is_located_at_its_table_not_at_a_comment_naming_it(tmp_path):
    root, user = tmp_path / "p", tmp_path / "u"
    (root / ".edgar").mkdir(parents=True)
    user.mkdir()
    config = root / ".edgar" / "config.toml"
    config.write_text('# hooks.PreToolUse runs our guard\n\n[[hooks.PreToolUse]]\n'
                      'command = "x"\nif = "Bash("\n')
    problems: list[str] = []
    load_hooks(root, user, {}, problems)
    assert problems and problems[0].startswith(f"{config}:3: hook PreToolUse"), problems


def test_a_wrong_mcp_server_is_located_at_its_entry(tmp_path):
    root, user = tmp_path / "p", tmp_path / "u"
    (root / ".edgar").mkdir(parents=True)
    user.mkdir()
    config = root / ".edgar" / "config.toml"
    config.write_text('# servers.bad! is our old one\n[mcp.servers."bad!"]\ncommand = "x"\n')
    problems: list[str] = []
    load_servers(root, user, {"bad!": {"command": "x"}}, {}, problems)
    assert problems and problems[0].startswith(f"{config}:2: mcp server 'bad!'"), problems
    mcp = root / ".mcp.json"
    mcp.write_text('{\n "renamed": {"bad!": "good"},\n "mcpServers": {\n'
                   '  "bad!": {"command": "x"}\n'
                   ' }\n}\n')
    problems = []
    read_mcp_json(mcp, {}, problems)
    assert problems and problems[0].startswith(f"{mcp}:4: mcp server 'bad!'"), problems
