"""The seams of design.md §3.1 and §3.3, checked statically on the real tree and proven able
to fail on planted violations. Runs (and can fail) with edgar/learning deleted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.architecture import (
    circle_violations,
    cli_from_learning_violations,
    conversation_violations,
    learning_violations,
    mode_list_violations,
    model_responded_violations,
    modules,
    prompt_typed_violations,
    session_fields,
    session_wiring_violations,
    subscribe_violations,
    upward_violations,
)

ROOT = Path(__file__).resolve().parents[2]


def test_nothing_outside_learning_imports_or_names_it():
    assert learning_violations(ROOT) == []


def test_prompt_typed_is_built_only_by_submit_and_run_prompt():
    assert prompt_typed_violations(ROOT) == []


def test_model_responded_is_built_only_by_model_call():
    assert model_responded_violations(ROOT) == []


def test_the_conversation_is_its_own_floor():
    assert conversation_violations(ROOT) == []


def test_learning_never_imports_the_cli():
    assert cli_from_learning_violations(ROOT) == []


def test_only_the_composition_root_subscribes():
    assert subscribe_violations(ROOT) == []


def test_the_checks_see_the_whole_tree():
    names = {rel for rel, _, _ in modules(ROOT)}
    assert "edgar/cli/setup.py" in names and "edgar/core/loop.py" in names
    assert len(names) > 20


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "edgar", tmp_path / "edgar",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


PLANTS = {
    "top-level import": "import edgar.learning\n",
    "function-body import": "def later():\n    import edgar.learning.learner\n",
    "from-import": "def later():\n    from edgar.learning import attach\n",
    "from edgar import learning": "from edgar import learning\n",
    "relative import": "from ..learning import cli\n",
    "import_module string": "import importlib\nm = importlib.import_module('edgar.learning')\n",
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_learning_import_fails_the_check(tree_copy: Path, plant: str):
    (tree_copy / "edgar" / "core" / "sneaky.py").write_text(PLANTS[plant])
    found = learning_violations(tree_copy)
    assert found and all("edgar/core/sneaky.py" in v for v in found), found


def test_the_check_runs_and_fails_without_the_learning_package(tree_copy: Path):
    shutil.rmtree(tree_copy / "edgar" / "learning", ignore_errors=True)
    assert learning_violations(tree_copy) == []
    (tree_copy / "edgar" / "tools" / "v2.py").write_text("def f():\n    import edgar.learning\n")
    assert learning_violations(tree_copy) == ["edgar/tools/v2.py:2: imports edgar.learning"]


@pytest.mark.parametrize("code", [
    "from edgar.events import PromptTyped\nPromptTyped(text='x')\n",
    "import edgar.events as e\ndef f():\n    return e.PromptTyped(text='x')\n",
    "from edgar.events import PromptTyped as P\n",
    "import edgar.events as e\nP = getattr(e, 'PromptTyped')\n",
    "import edgar.events as e\nif 'PromptTyped' == 'PromptTyped':\n    e.PromptTyped(text='x')\n",
])
def test_a_planted_prompt_typed_construction_fails_the_check(tree_copy: Path, code: str):
    (tree_copy / "edgar" / "tools" / "read_more.py").write_text(code)
    found = prompt_typed_violations(tree_copy)
    assert found and all("edgar/tools/read_more.py" in v for v in found), found


@pytest.mark.parametrize("code", [
    "from edgar.events import ModelResponded\nModelResponded(model='m', usage=None, cost=0)\n",
    "import edgar.events as e\ndef f():\n    return e.ModelResponded(model='m')\n",
    "from edgar.events import ModelResponded as R\n",
])
def test_a_planted_model_responded_construction_fails_the_check(tree_copy: Path, code: str):
    (tree_copy / "edgar" / "core" / "compaction2.py").write_text(code)
    found = model_responded_violations(tree_copy)
    assert found and all("edgar/core/compaction2.py" in v for v in found), found


@pytest.mark.parametrize("where, code", [
    ("edgar/conversation.py", "from edgar.events import Event\n"),
    ("edgar/conversation.py", "import edgar.bus\n"),
    ("edgar/conversation.py", "from . import events\n"),
    ("edgar/core/sneaky.py", "from edgar.providers.base import Message\n"),
    ("edgar/tools/sneaky.py", "def f():\n    from edgar.events import Usage\n"),
])
def test_a_planted_conversation_violation_fails_the_check(tree_copy: Path, where: str, code: str):
    target = tree_copy / where
    target.write_text(target.read_text() + code if target.exists() else code)
    found = conversation_violations(tree_copy)
    assert found and all(where in v for v in found), found


@pytest.mark.parametrize("code", [
    "from edgar.cli.setup import config_secrets\n",
    "def f():\n    import edgar.cli.setup\n",
    "from ..cli import setup\n",
    "import importlib\nm = importlib.import_module('edgar.cli.setup')\n",
])
def test_a_planted_cli_import_from_learning_fails_the_check(tree_copy: Path, code: str):
    (tree_copy / "edgar" / "learning").mkdir(exist_ok=True)
    (tree_copy / "edgar" / "learning" / "sneaky.py").write_text(code)
    found = cli_from_learning_violations(tree_copy)
    assert found and all("edgar/learning/sneaky.py" in v for v in found), found


def test_a_planted_subscription_fails_the_check(tree_copy: Path):
    (tree_copy / "edgar" / "core" / "sneaky.py").write_text(
        "def wire(bus, handler):\n    bus.subscribe(object, handler)\n")
    assert subscribe_violations(tree_copy) == ["edgar/core/sneaky.py:2: subscribes to the bus"]


def test_a_session_is_built_whole():
    assert session_wiring_violations(ROOT) == []


def test_the_wiring_check_knows_the_session_fields():
    fields = session_fields(ROOT)
    assert {"guard", "waits", "log", "before_step", "after_stop", "messages"} <= fields


@pytest.mark.parametrize("code", [
    "def attach(app, hooks):\n    app.session.guard = hooks\n",
    "def attach(session, servers):\n    session.waits.append(servers.ready)\n",
    "def attach(self, log):\n    self.session.log = log\n",
    "def attach(session, v):\n    session.after_stop += [v]\n",
    "def attach(session, c):\n    setattr(session, 'compactor', c)\n",
    "def attach(session, c):\n    session.before_step.insert(0, c)\n",
])
def test_a_planted_session_change_after_construction_fails_the_check(tree_copy: Path, code: str):
    (tree_copy / "edgar" / "cli" / "sneaky.py").write_text(code)
    found = session_wiring_violations(tree_copy)
    assert found and all("edgar/cli/sneaky.py" in v for v in found), found


def test_the_conversation_state_may_change(tree_copy: Path):
    (tree_copy / "edgar" / "cli" / "fine.py").write_text(
        "def run(session, p):\n    session.messages.clear()\n    session.turns += 1\n"
        "    session.provider = p\n    session.gate.extra = []\n")
    assert session_wiring_violations(tree_copy) == []


def test_the_permission_modes_are_named_once():
    assert mode_list_violations(ROOT) == []


@pytest.mark.parametrize("code", [
    'p.add_argument("--permission-mode", choices=("ask", "auto-edit", "yes", "read-only"))\n',
    'MODES = ["ask", "yes"]\n',
    'from typing import Literal\nMode = Literal["read-only", "auto-edit"]\n',
])
def test_a_planted_list_of_modes_fails_the_check(tree_copy: Path, code: str):
    (tree_copy / "edgar" / "cli" / "sneaky.py").write_text(code)
    found = mode_list_violations(tree_copy)
    assert found and all("edgar/cli/sneaky.py" in v for v in found), found


def test_edgar_never_imports_a_provider_sdk(tmp_path):
    from support.architecture import sdk_violations

    assert sdk_violations(ROOT) == []
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "edgar", copy / "edgar")
    (copy / "edgar" / "providers" / "planted.py").write_text("def f():\n    import anthropic\n")
    assert sdk_violations(copy) == ["edgar/providers/planted.py:2: imports anthropic"]


def test_edgar_never_imports_a_test_only_dependency(tmp_path):
    from support.architecture import TEST_ONLY, sdk_violations

    assert sdk_violations(ROOT, TEST_ONLY) == []
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "edgar", copy / "edgar")
    planted = copy / "edgar" / "cli" / "planted.py"
    planted.write_text("import pyte\nfrom hypothesis import given\n")
    assert sdk_violations(copy, TEST_ONLY) == ["edgar/cli/planted.py:1: imports pyte",
                                               "edgar/cli/planted.py:2: imports hypothesis",
                                               "edgar/cli/planted.py:2: imports hypothesis.given"]


def test_the_import_graph_has_no_circle():
    # TYPE_CHECKING and function-body imports count: a circle for the type checker is a
    # circle for the reader too (issue 27 item 3)
    assert circle_violations(ROOT) == []


@pytest.mark.parametrize("where,code", [
    ("edgar/core/turn.py", "if TYPE_CHECKING:\n    from edgar.core.session import Session\n"),
    ("edgar/core/compaction.py", "def later():\n    from edgar.core import session\n"),
    ("edgar/tools/todo_list.py", "import edgar.tools.todo\n"),
])
def test_a_planted_circle_fails_the_check(tree_copy: Path, where: str, code: str):
    path = tree_copy / where
    path.write_text(path.read_text(encoding="utf-8") + "\nfrom typing import TYPE_CHECKING\n"
                    + code, encoding="utf-8")
    found = circle_violations(tree_copy)
    assert len(found) == 1 and where[:-3].replace("/", ".") in found[0]


def test_nothing_imports_upward():
    assert upward_violations(ROOT) == []


@pytest.mark.parametrize("where,code,says", [
    ("edgar/sandbox/policy.py", "from edgar.config import Settings\n", "edgar.sandbox imports"),
    ("edgar/tools/shell.py", "def later():\n    from edgar.core.loop import run_turn\n",
     "edgar.tools imports edgar.core.loop"),
    ("edgar/core/loop.py", "import edgar.cli.render\n", "edgar.core imports edgar.cli.render"),
    ("edgar/conversation.py", "import edgar.tools.base\n", "the floor imports edgar.tools.base"),
])
def test_a_planted_upward_import_fails_the_check(tree_copy: Path, where: str, code: str,
                                                  says: str):
    path = tree_copy / where
    path.write_text(path.read_text(encoding="utf-8") + "\n" + code, encoding="utf-8")
    assert any(says in v for v in upward_violations(tree_copy))
