"""SKILL.md parsing: the YAML front-matter subset, Claude Code-shaped skills, located warnings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar.skills.loader import (
    SkillError,
    discover,
    parse_front_matter,
    parse_skill,
    skill_dirs,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "skills"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_labelled_skill_set_loads_without_warnings():
    skills, warnings = discover([DATA])
    assert warnings == []
    assert len(skills) == 22
    mermaid = next(s for s in skills if s.name == "mermaid-diagrams")
    assert "sequence diagram" in mermaid.keywords and mermaid.body.startswith("# Mermaid")


def test_a_claude_code_shaped_skill_loads_unchanged():
    # the shape of anthropics/skills: license, allowed-tools, nested metadata, folded text
    text = """---
name: pdf
description: Comprehensive PDF manipulation toolkit for extracting text and tables,
  creating new PDFs, merging/splitting documents. Use when Claude needs to fill forms.
license: Proprietary. LICENSE.txt has complete terms
allowed-tools: [Read, Bash]
metadata:
  version: "1.0"
  tags:
    - documents
---
# PDF Processing Guide

Body text.
"""
    skill = parse_skill(text, Path("/x/pdf/SKILL.md"))
    assert skill.name == "pdf"
    assert skill.description.startswith("Comprehensive PDF manipulation toolkit for extracting "
                                        "text and tables, creating new PDFs")
    assert skill.keywords == ()
    assert skill.body == "# PDF Processing Guide\n\nBody text."


@pytest.mark.parametrize("keywords, expected", [
    ("keywords: [a, 'b, c', \"d\"]", ("a", "b, c", "d")),
    ("keywords:\n  - one\n  - 'two words'\n", ("one", "two words")),
    ("keywords: alpha, beta ,gamma", ("alpha", "beta", "gamma")),
    ("keywords: []", ()),
])
def test_keyword_list_forms(keywords, expected):
    skill = parse_skill(f"---\nname: k\ndescription: d\n{keywords}\n---\nbody")
    assert skill.keywords == expected


def test_quoted_and_block_scalars():
    meta, body, start = parse_front_matter(
        "---\na: 'it''s'\nb: \"say \\\"hi\\\"\\n\"\nc: |\n  line 1\n  line 2\n"
        "d: >\n  folded\n  text\ne: plain # a comment\n---\nthe body\n")
    assert meta == {"a": "it's", "b": 'say "hi"\n', "c": "line 1\nline 2",
                    "d": "folded text", "e": "plain"}
    assert body == "the body" and start == 12


def test_the_name_defaults_to_the_folder():
    assert parse_skill("---\ndescription: d\n---\n", Path("/s/lint/SKILL.md")).name == "lint"


@pytest.mark.parametrize("text, line, words", [
    ("# just markdown\n", 1, "no front matter"),
    ("---\nname: x\ndescription: d\n", 1, "never closed"),
    ("---\nname: x\ndescription: \"oops\n---\n", 3, "unterminated"),
    ("---\nname: x\ndescription: d\nkeywords: [a, b\n---\n", 4, "must close"),
    ("---\nname: x\n---\nbody", 1, "'description' is required"),
    ("---\nname: x\ndescription:\n---\n", 3, "'description' is required"),
    ("---\nname: x\ndescription: d\nkeywords:\n  k: v\n---\n", 4, "list of strings"),
    ("---\nname: x\ndescription: d\nnot a key line\n---\n", 4, "expected 'key: value'"),
    ("---\nname: x\ndescription: d\nkeywords:\n  - a\n   - b\n---\n", 6, "'- item'"),
    ("---\nname: [a, b]\ndescription: d\n---\n", 2, "'name' must be"),
])
def test_malformed_front_matter_is_a_located_error(text, line, words):
    with pytest.raises(SkillError) as caught:
        parse_skill(text)
    assert caught.value.line == line and words in caught.value.message


def test_discover_skips_a_broken_file_with_a_file_line_warning(tmp_path):
    folder = tmp_path / "skills"
    write(folder, "good", "---\nname: good\ndescription: fine\n---\nbody")
    bad = write(folder, "bad", "---\nname: bad\ndescription: 'unclosed\n---\n")
    skills, warnings = discover([folder])
    assert [s.name for s in skills] == ["good"]
    assert [str(w) for w in warnings] == [f"{bad}:3: unterminated '-quoted string"]


def test_the_project_wins_over_the_user_dir_and_claude_dirs_are_opt_in(tmp_path):
    root, user, home = tmp_path / "proj", tmp_path / "user", tmp_path / "home"
    write(root / ".edgar" / "skills", "lint", "---\nname: lint\ndescription: project\n---\n")
    write(user / "skills", "lint", "---\nname: lint\ndescription: user\n---\n")
    write(user / "skills", "mine", "---\nname: mine\ndescription: user only\n---\n")
    write(root / ".claude" / "skills", "cc", "---\nname: cc\ndescription: claude\n---\n")
    write(home / ".claude" / "skills", "cchome", "---\nname: cchome\ndescription: c\n---\n")

    skills, warnings = discover(skill_dirs(root, user))
    assert {s.name: s.description for s in skills} == {"lint": "project", "mine": "user only"}
    assert len(warnings) == 1 and "already defined" in warnings[0].message

    skills, _ = discover(skill_dirs(root, user, claude=True, home=home))
    assert {s.name for s in skills} == {"lint", "mine", "cc", "cchome"}


def test_missing_folders_are_fine(tmp_path):
    assert discover([tmp_path / "nope"]) == ([], [])


YAMLISH = st.lists(st.sampled_from(list("ab:- '\"[],|>#\n\t ") + [
    "name", "description", "keywords", "  ", "\n  - ", ": "]), max_size=40).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=300) | YAMLISH)
def test_any_front_matter_parses_or_is_a_located_skill_error(body):
    try:
        skill = parse_skill("---\n" + body + "\n---\nbody")
    except SkillError as exc:
        assert exc.line >= 1
    else:
        assert skill.name and skill.description
