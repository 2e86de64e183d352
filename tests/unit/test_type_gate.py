"""The type gate (ADR 0055) stays a gate: ``[tool.mypy]`` keeps its settings, the strict
modules stay strict and exist, ``.ci/run`` runs ``mypy edgar`` after ruff and before the
suite, and every ``# type: ignore`` left in edgar says why. mypy itself runs in ``.ci/run``,
not here; these checks read the files and are proven able to fail on planted violations."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# issue 27 item 6: mypy --strict over core/, bus, events, conversation, providers/ and tools/
STRICT_MODULES = ("edgar.conversation", "edgar.events", "edgar.bus", "edgar.core.*",
                  "edgar.providers.*", "edgar.tools.*")
# what ``mypy --strict`` turns on that a per-module override can (mypy --help, "--strict");
# warn_unused_ignores and warn_redundant_casts are global (GLOBAL_FLAGS)
STRICT_FLAGS = ("disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls",
                "disallow_untyped_defs", "disallow_incomplete_defs", "check_untyped_defs",
                "disallow_untyped_decorators", "warn_return_any", "no_implicit_reexport",
                "strict_equality", "extra_checks")
GLOBAL_FLAGS = ("warn_unused_ignores", "warn_redundant_casts", "check_untyped_defs",
                "strict_equality")


def config_violations(pyproject: str, root: Path) -> list[str]:
    mypy = tomllib.loads(pyproject).get("tool", {}).get("mypy")
    if mypy is None:
        return ["pyproject.toml has no [tool.mypy]"]
    out = [f"[tool.mypy] {flag} is not true" for flag in GLOBAL_FLAGS if mypy.get(flag) is not True]
    if "ignore-without-code" not in mypy.get("enable_error_code", []):
        out.append("[tool.mypy] does not enable ignore-without-code (a blanket ignore would pass)")
    strict = [o for o in mypy.get("overrides", [])
              if set(STRICT_MODULES) <= set(o.get("module", []))]
    if not strict:
        out.append(f"no [[tool.mypy.overrides]] lists all of {', '.join(STRICT_MODULES)}")
    for override in strict:
        out += [f"strict override: {flag} is not true" for flag in STRICT_FLAGS
                if override.get(flag) is not True]
    for module in STRICT_MODULES:
        if module.endswith(".*"):   # a package: every module under it
            path = root / module[:-2].replace(".", "/") / "__init__.py"
        else:
            path = root / (module.replace(".", "/") + ".py")
        if not path.is_file():   # mypy only notes an override of a module that is gone
            out.append(f"strict module {module} has no file {path.relative_to(root)}")
    return out


def ci_violations(script: str) -> list[str]:
    lines = [line.split("#", 1)[0].strip() for line in script.splitlines()]

    def at(command: str) -> int | None:
        return next((i for i, line in enumerate(lines) if line == command), None)

    ruff, mypy, suite = at("ruff check edgar tests"), at("mypy edgar"), at("python -m pytest")
    if mypy is None:
        return [".ci/run never runs `mypy edgar`"]
    if not any(line.startswith("pip install") and "mypy" in line for line in lines[:mypy]):
        return [".ci/run runs mypy without installing it first"]
    if ruff is None or mypy < ruff:
        return [".ci/run runs `mypy edgar` before the ruff step"]
    if suite is None or suite < mypy:
        return [".ci/run runs the suite before `mypy edgar`"]
    return []


_IGNORE = re.compile(r"#\s*type:\s*ignore\b(\[[a-z, -]+\])?(.*)")


def ignore_violations(src: Path) -> list[str]:
    """Every ``# type: ignore`` names its code and says why (after it, or on the line above)."""
    out = []
    for path in sorted(src.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            found = _IGNORE.search(line)
            if found is None:
                continue
            where = f"{path.relative_to(src.parent)}:{number}"
            if not found.group(1):
                out.append(f"{where}: a blanket type: ignore")
            elif not (found.group(2).strip(" #") or lines[number - 2].strip().startswith("#")):
                out.append(f"{where}: type: ignore{found.group(1)} without a comment saying why")
    return out


def test_the_mypy_config_keeps_its_settings_and_strict_modules():
    assert config_violations((ROOT / "pyproject.toml").read_text(encoding="utf-8"), ROOT) == []


def test_ci_runs_mypy_after_ruff_and_before_the_suite():
    assert ci_violations((ROOT / ".ci" / "run").read_text(encoding="utf-8")) == []


def test_every_type_ignore_in_edgar_names_its_code_and_says_why():
    assert ignore_violations(ROOT / "edgar") == []


# -- planted violations ----------------------------------------------------------------------
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("old, new", [
    ("warn_unused_ignores = true", "warn_unused_ignores = false"),
    ('enable_error_code = ["ignore-without-code"]', "enable_error_code = []"),
    ('"edgar.bus", ', ""),
    ("disallow_untyped_defs = true", "disallow_untyped_defs = false"),
    ("\nwarn_return_any = true", ""),
    ("[tool.mypy]", "[tool.not-mypy]"),
])
def test_a_weakened_config_fails_the_check(old: str, new: str):
    assert old in PYPROJECT
    assert config_violations(PYPROJECT.replace(old, new, 1), ROOT) != []


def test_a_strict_module_that_is_gone_fails_the_check(tmp_path: Path):
    for module in STRICT_MODULES[:-1]:
        if module.endswith(".*"):
            path = tmp_path / module[:-2].replace(".", "/") / "__init__.py"
        else:
            path = tmp_path / (module.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    (tmp_path / "edgar" / "tools").mkdir()   # a folder left behind is not a package
    assert config_violations(PYPROJECT, tmp_path) == [
        "strict module edgar.tools.* has no file edgar/tools/__init__.py"]


CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.parametrize("plant, said", [
    ("dropped", "never runs `mypy edgar`"),
    ("commented out", "never runs `mypy edgar`"),
    ("not installed", "without installing it first"),
    ("before ruff", "before the ruff step"),
    ("after the suite", "runs the suite before"),
])
def test_a_ci_script_without_the_gate_fails_the_check(plant: str, said: str):
    lines = [line for line in CI.splitlines() if line.strip() != "mypy edgar"]
    install = next(i for i, line in enumerate(lines) if "pip install" in line and "mypy" in line)
    ruff = next(i for i, line in enumerate(lines) if line.strip() == "ruff check edgar tests")
    suite = next(i for i, line in enumerate(lines) if line.strip() == "python -m pytest")
    if plant == "commented out":
        lines.insert(install + 1, "# mypy edgar")
    elif plant == "not installed":
        lines[install] = "mypy edgar"
    elif plant == "before ruff":
        lines[ruff:ruff] = [lines.pop(install), "mypy edgar"]
    elif plant == "after the suite":
        lines.insert(suite + 1, "mypy edgar")
    found = ci_violations("\n".join(lines))
    assert len(found) == 1 and said in found[0], found


@pytest.mark.parametrize("code", [
    "x = f()  # type: ignore\n",
    "x = f()  # type: ignore[attr-defined]\n",
    "y = 1\nx = f()  # type:ignore[misc]\n",
])
def test_an_unexplained_ignore_fails_the_check(tmp_path: Path, code: str):
    (tmp_path / "edgar").mkdir()
    (tmp_path / "edgar" / "m.py").write_text(code)
    assert ignore_violations(tmp_path / "edgar") != []


def test_an_explained_ignore_passes_the_check(tmp_path: Path):
    (tmp_path / "edgar").mkdir()
    (tmp_path / "edgar" / "m.py").write_text(
        "# typeshed's stub omits it\nx = f()  # type: ignore[attr-defined]\n"
        "y = g()  # type: ignore[misc]  # the stub is wrong about g\n")
    assert ignore_violations(tmp_path / "edgar") == []


# issue 27 item 6: ruff over edgar and tests with at least these families, line length held
RUFF_FAMILIES = ("E", "F", "W", "I", "B", "UP", "SIM", "C4")
MAX_LINE = 100


def ruff_violations(config: dict) -> list[str]:
    """What `[tool.ruff]` in pyproject.toml lets through that the lint gate must not."""
    ruff = config.get("tool", {}).get("ruff", {})
    lint = ruff.get("lint", {})
    out = [f"ruff does not select {family}" for family in RUFF_FAMILIES
           if family not in lint.get("select", [])]
    ignored = [code for code in lint.get("ignore", []) if code.startswith("E5")
               or code in RUFF_FAMILIES]
    out += [f"ruff ignores {code}" for code in ignored]
    if ruff.get("line-length", 88) > MAX_LINE:
        out.append(f"ruff's line-length is over {MAX_LINE}")
    return out


def test_ruff_selects_the_families_and_holds_the_line_length():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert ruff_violations(config) == []


@pytest.mark.parametrize("plant, said", [
    ({"select": ["E", "F", "W", "I", "B", "UP", "SIM"]}, "does not select C4"),
    ({"ignore": ["E501"]}, "ignores E501"),
    ({"ignore": ["B"]}, "ignores B"),
    ({"line-length": 120}, "line-length is over 100"),
])
def test_a_weakened_ruff_gate_fails_the_check(plant: dict, said: str):
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ruff = config["tool"]["ruff"]
    if "line-length" in plant:
        ruff["line-length"] = plant["line-length"]
    else:
        ruff["lint"].update(plant)
    found = ruff_violations(config)
    assert any(said in line for line in found), found
