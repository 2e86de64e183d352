"""The learning-deleted pass of `.ci/run` runs only the tests that can differ without
``edgar/learning`` (``pytest --learning-may-differ``): the selection is made from the source,
and a test that touches the package in any way the rule knows is kept — on planted files,
on the real tree, and the same with the package deleted (where the pass computes it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.learning_reach import Reach, may_differ

ROOT = Path(__file__).resolve().parents[2]
TESTS = sorted(ROOT.glob("tests/**/test_*.py"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """edgar's source and the tests' Python files (no data), as a checkout has them."""
    shutil.copytree(ROOT / "edgar", tmp_path / "edgar",
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copytree(ROOT / "tests", tmp_path / "tests",
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    return tmp_path


PLANTED = {
    "imports the package": ("import edgar.learning.learner\n", True),
    "skips without it": ("import pytest\npytest.importorskip('edgar.learning')\n", True),
    "the marker": ("import pytest\n@pytest.mark.learning\ndef test_x(): pass\n", True),
    "the composition root, in a body": ("def test_x():\n    from edgar.cli import setup\n", True),
    "edgar as a process": ("import sys, subprocess\ndef test_x():\n"
                           "    subprocess.run([sys.executable, '-m', 'edgar', 'stats'])\n", True),
    "edgar as bytes": ("import subprocess\ndef test_x():\n"
                       "    subprocess.run([b'python3', b'-m', b'edgar'])\n", True),
    "the console script": ("import shutil\nEDGAR = shutil.which('edgar')\n", True),
    "reads the tree": ("from pathlib import Path\nR = Path('.')\nX = R / 'edgar'\n", True),
    "through a support helper": ("from support.project import run_edgar\n", True),
    "the bus alone": ("from edgar.bus import Bus\ndef test_x(): Bus()\n", False),
    "the redactor": ("from edgar.redact import redact\ndef test_x(): redact('x')\n", False),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_planted_test_file_is_judged_by_what_it_can_reach(tree: Path, name: str):
    source, expected = PLANTED[name]
    planted = tree / "tests" / "unit" / "test_planted.py"
    planted.write_text(source)
    assert may_differ(tree, planted) is expected


def test_a_support_module_reaching_the_composition_root_counts(tree: Path):
    (tree / "tests" / "support" / "wiring.py").write_text(
        "def build():\n    from edgar.cli.setup import build\n    return build\n")
    planted = tree / "tests" / "unit" / "test_planted.py"
    planted.write_text("from support.wiring import build\n")
    assert may_differ(tree, planted)
    (tree / "tests" / "support" / "wiring.py").write_text("def build():\n    return 1\n")
    assert not may_differ(tree, planted)


def test_on_the_real_tree_every_file_that_names_learning_or_runs_edgar_is_kept():
    reach = Reach(ROOT)
    for path in TESTS:
        text = path.read_text(encoding="utf-8")
        if "edgar.learning" in text or '"-m", "edgar"' in text or "run_edgar" in text:
            assert reach.may_differ(path), path
    assert not reach.may_differ(ROOT / "tests" / "unit" / "test_bus.py")
    kept = sum(reach.may_differ(p) for p in TESTS)
    assert 0 < kept < len(TESTS)


def test_the_selection_is_the_same_with_the_package_deleted(tree: Path):
    if not (tree / "edgar" / "learning").is_dir():   # .ci/run's second pass deleted it already
        pytest.skip("edgar/learning is deleted: there is no 'before' to compare")
    def selected() -> set[Path]:
        reach = Reach(tree)
        return {p.relative_to(tree) for p in tree.glob("tests/**/test_*.py") if reach.may_differ(p)}

    before = selected()
    shutil.rmtree(tree / "edgar" / "learning")
    after = selected()
    assert before == after
