"""Claude Code's rule files (ADR-0112): the front matter's ``paths`` and the glob, as pure
functions, against what Claude Code's docs show."""

from __future__ import annotations

import fnmatch
import string

from hypothesis import given
from hypothesis import strategies as st

from edgar.core.claude_rules import matches, parse

NAME = st.text(alphabet=string.ascii_lowercase + string.digits + "_-", min_size=1, max_size=8)
PATHS = st.lists(NAME, min_size=1, max_size=5).map("/".join)


@given(st.lists(PATHS, min_size=1, max_size=4), st.text(max_size=200))
def test_paths_in_any_spelling_come_back(paths, body):
    body = body.replace("---", "")
    as_list = "---\npaths:\n" + "".join(f'  - "{p}"\n' for p in paths) + "---\n" + body
    inline = "---\npaths: [" + ", ".join(paths) + "]\nother: x\n---\n" + body
    for text in (as_list, inline):
        found, rest = parse(text)
        assert found == paths and rest == body.strip()


@given(st.text(max_size=300))
def test_without_front_matter_a_rule_applies_everywhere(text):
    if not text.startswith("---"):
        assert parse(text) == (None, text.strip())


@given(PATHS)
def test_double_star_matches_any_depth_and_star_one_name(path):
    assert matches(["**/*"], path)
    assert matches(["**"], path)
    assert matches([path], path)
    name = path.rsplit("/", 1)[-1]
    assert matches(["*"], path) == ("/" not in path)
    assert matches([f"**/{name}"], path)


@given(PATHS, NAME)
def test_a_plain_star_pattern_agrees_with_fnmatch_within_one_folder(path, ext):
    file = f"{path}.{ext}"
    pattern = path.rsplit("/", 1)[0] + f"/*.{ext}" if "/" in path else f"*.{ext}"
    assert matches([pattern], file) == fnmatch.fnmatchcase(file, pattern)


def test_braces_and_folders_as_claude_codes_docs_write_them():
    assert matches(["src/**/*.{ts,tsx}"], "src/a/b/c.tsx")
    assert matches(["src/**/*.{ts,tsx}"], "src/c.ts")
    assert not matches(["src/**/*.{ts,tsx}"], "lib/c.ts")
    assert not matches(["src/*.ts"], "src/a/c.ts")
    assert matches(["tests/**/*.test.ts"], "tests/x.test.ts")
