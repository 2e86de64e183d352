"""What docs/ and the code's docstrings point at exists: cited ADRs, named modules, declared
pytest markers, and the CI setting tests/conftest.py describes (issue 13, item 12)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADR_CITE = re.compile(r"ADRs?[- ]?(\d{1,4})((?:\s*(?:,|and|/|–)\s*\d{2,4})*)")
THIS = "tests/unit/test_docs_true.py"
MODULE = re.compile(r"`((?:[\w-]+/)*[\w-]+\.py)`")


def cited_adr_problems(text: str, have: set[int]) -> list[str]:
    """ADR numbers cited that are not in adr/ and not said to be a seed's (another project's)."""
    out = []
    for m in ADR_CITE.finditer(text):
        numbers = [int(m.group(1)), *(int(x) for x in re.findall(r"\d{2,4}", m.group(2)))]
        around = text[max(0, m.start() - 120):m.end() + 60]
        if re.search(r"seed|neighbou?ring", around):
            continue                      # another project's ADR, named as such
        out += [f"ADR {n}" for n in numbers if n not in have]
    return out


def missing_modules(text: str, files: set[str]) -> list[str]:
    """``name.py`` (or ``dir/name.py``) named in backticks that no file of the repo is."""
    out = []
    for m in MODULE.finditer(text):
        ref = m.group(1)
        if ref.startswith(".edgar/"):
            continue                      # a file in the person's project, not edgar's
        if not any(f == ref or f.endswith("/" + ref) for f in files):
            out.append(ref)
    return out


def _texts():
    globs = ["edgar/**/*.py", "edgar/**/README.md", "docs/*.md", "bench/*.py", "scripts/*.py",
             "tests/**/*.py", "adr/*.md", "README.md"]
    for pattern in globs:
        for path in sorted(ROOT.glob(pattern)):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def _files() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py")
            if ".git" not in p.parts and "egg-info" not in p.as_posix()}


def test_every_cited_adr_is_in_adr_or_named_as_a_seeds():
    have = {int(p.name[:4]) for p in (ROOT / "adr").glob("[0-9][0-9][0-9][0-9]-*.md")}
    problems = [f"{rel}: {p}" for rel, text in _texts() if rel != THIS   # its plants
                for p in cited_adr_problems(text, have)]
    assert problems == []


def test_every_module_the_docs_name_exists():
    files = _files()
    docs = [(rel, text) for rel, text in _texts() if rel.startswith("docs/") or rel == "README.md"
            or rel.endswith("README.md")]
    problems = [f"{rel}: {ref}" for rel, text in docs for ref in missing_modules(text, files)]
    if not (ROOT / "edgar" / "learning").is_dir():   # deleted on purpose (.ci/run's second pass)
        problems = [p for p in problems if not p.split(": ", 1)[1].startswith(
            ("learning/", "edgar/learning/"))]
    assert problems == []


def test_the_checks_fail_on_planted_mistakes():
    assert cited_adr_problems("as ADR-0999 decided", {1}) == ["ADR 999"]
    assert cited_adr_problems("ADRs 0001 and 0998", {1}) == ["ADR 998"]
    assert cited_adr_problems("seed 002 (a neighbouring project's ADR-161)", set()) == []
    assert missing_modules("read `transcripts/claude_code/nowhere.py` first", {"edgar/a.py"}) \
        == ["transcripts/claude_code/nowhere.py"]
    assert missing_modules("`cli/prompt.py`", {"edgar/cli/prompt.py"}) == []


def test_every_declared_marker_is_used():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = [m.split(":")[0].strip() for m in config["tool"]["pytest"]["ini_options"]["markers"]]
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    unused = [m for m in declared if f"mark.{m}" not in tests]
    assert unused == [], "declared in pyproject.toml and used by no test"


def test_ci_run_derandomizes_hypothesis_as_conftest_says():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    exported = re.search(r"^export CI=", script, re.M)
    first_suite = script.find("python -m pytest")
    assert exported and exported.start() < first_suite, ".ci/run must export CI before pytest"
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert 'load_profile("ci" if os.environ.get("CI")' in conftest


def unlisted(folder: Path) -> list[str]:
    """Files and subfolders of ``folder`` its README.md does not name (in backticks)."""
    readme = folder / "README.md"
    if not readme.exists():
        return ["README.md"]
    text = readme.read_text(encoding="utf-8")
    return [p.name for p in sorted(folder.iterdir())
            if p.name not in ("README.md", "__pycache__") and not p.name.endswith(".pyc")
            and f"`{p.name}`" not in text and f"`{p.name}/`" not in text]


def test_every_folder_of_edgar_has_a_readme_naming_each_file():
    folders = [p for p in [ROOT / "edgar", *(ROOT / "edgar").rglob("*")]
               if p.is_dir() and not p.is_symlink() and p.name != "__pycache__"
               and not any(parent.is_symlink() for parent in p.parents)]
    problems = [f"{f.relative_to(ROOT)}: {name}" for f in folders for name in unlisted(f)]
    assert problems == [], "each folder's README.md has one line per file"


def test_the_readme_check_sees_an_unlisted_file(tmp_path):
    (tmp_path / "a.py").write_text("")
    assert unlisted(tmp_path) == ["README.md"]
    (tmp_path / "README.md").write_text("- `b.py` — something\n")
    assert unlisted(tmp_path) == ["a.py"]


LOOK_FOR = re.compile(r"^Look for:(.*(?:\n(?!\n).+)*)", re.M)


def unknown_look_for_names(doc: str, source: str) -> list[str]:
    """Names a tour stop's "Look for:" line lists that no source file defines or uses."""
    out = []
    for block in LOOK_FOR.findall(doc):
        names = re.findall(r"`([^`]+)`", block) or [n.strip(",") for n in block.split()]
        for name in names:
            key = name.split(".")[-1].split("(")[0]
            if key and not re.search(rf"\b{re.escape(key)}\b", source):
                out.append(name)
    return out


@pytest.mark.learning
def test_every_name_a_tour_stop_says_to_look_for_exists():
    # several stops (learning, import, redaction) name what lives in edgar/learning
    pytest.importorskip("edgar.learning")
    source = "\n".join(p.read_text(encoding="utf-8")
                       for pattern in ("edgar/**/*.py", "tests/**/*.py")
                       for p in ROOT.glob(pattern))
    docs = sorted((ROOT / "docs").glob("*.md"))
    problems = [f"{d.name}: {n}" for d in docs
                for n in unknown_look_for_names(d.read_text(encoding="utf-8"), source)]
    assert problems == []


def test_the_look_for_check_sees_a_name_that_is_gone():
    doc = "## 1 x\n\nLook for: `run_turn` `kill_group`\n`Turn`\n\nprose `other`\n"
    assert unknown_look_for_names(doc, "def run_turn(): ...\nclass Turn: ...") == ["kill_group"]
