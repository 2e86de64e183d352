"""Static checks of edgar's seams, over any copy of the source tree (AST, no imports run).

- ``learning_violations``: a module outside ``edgar/learning`` imports ``edgar.learning``
  (top level or inside a function body, absolute or relative), or names it in a string
  outside ``cli/setup.py`` and ``cli/main.py``.
- ``prompt_typed_violations``: ``PromptTyped`` is constructed, aliased or looked up by name
  anywhere but ``cli/repl.py`` and ``cli/oneshot.py``.
- ``model_responded_violations``: the same for ``ModelResponded`` outside ``core/model_call.py``
  (one place calls a model and accounts for it).
- ``conversation_violations``: ``edgar/conversation.py`` imports something from edgar, or a
  module takes a conversation type (``Message``, blocks, ``ToolSpec``, ``Usage``) from
  ``edgar.providers`` or ``edgar.events`` instead of ``edgar.conversation``.
- ``subscribe_violations``: ``.subscribe(`` called outside the composition root
  (``cli/setup.py``), learning's ``attach`` (which the root calls) and the bus itself.
- ``cli_from_learning_violations``: a module of ``edgar/learning`` imports ``edgar.cli``
  (learning is attached by the composition root; it never reaches back into it).
- ``session_wiring_violations``: a module assigns (``=``, ``+=``, ``setattr``) or grows
  (``.append``/``.extend``/``.insert``/``.clear`` …) one of a Session's collaborators after
  construction — every field of ``core/session.py``'s ``Session`` except the conversation's
  own state (``SESSION_STATE``). The composition root passes them all to the constructor.
- ``mode_list_violations``: the permission modes written out (a tuple, list, set or
  ``Literal[...]`` holding two or more of them) anywhere but ``edgar/tools/modes.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

LEARNING = "edgar.learning"
NAMING_ALLOWED = {"edgar/cli/setup.py", "edgar/cli/main.py"}
PROMPT_SITES = {"edgar/cli/repl.py", "edgar/cli/oneshot.py"}
MODEL_CALL_SITES = {"edgar/core/model_call.py"}
SUBSCRIBE_SITES = {"edgar/cli/setup.py", "edgar/learning/__init__.py", "edgar/bus.py"}
CONVERSATION = "edgar.conversation"
CONVERSATION_NAMES = {"TextBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "Block",
                      "Message", "ToolSpec", "Usage"}


def modules(src_root: Path):
    """(relative path, module name, parsed tree) of every module under src_root/edgar."""
    for path in sorted((src_root / "edgar").rglob("*.py")):
        rel = path.relative_to(src_root).as_posix()
        parts = rel[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield rel, ".".join(parts), parse(path.read_text(encoding="utf-8"), rel)


def parse(source: str, filename: str) -> ast.Module:
    """``ast.parse``, once more if CPython 3.11 reports "AST constructor recursion depth
    mismatch": its AST builder keeps one recursion counter per interpreter, so a thread that
    compiles at the same moment (an import in a server thread a test left running) can trip
    it (python/cpython gh-106905). A real syntax error or recursion error is raised as ever."""
    try:
        return ast.parse(source, filename)
    except SystemError as exc:
        if "recursion depth mismatch" not in str(exc):
            raise
        return ast.parse(source, filename)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every imported module name, function bodies included (ast.walk sees all)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node, module, is_package)
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{a.name}") for a in node.names]
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _is_learning(name: str) -> bool:
    return name == LEARNING or name.startswith(LEARNING + ".")


def learning_violations(src_root: Path) -> list[str]:
    out = []
    for rel, module, tree in modules(src_root):
        if rel.startswith("edgar/learning/"):
            continue
        is_package = rel.endswith("__init__.py")
        for line, name in imports(tree, module, is_package):
            if _is_learning(name):
                out.append(f"{rel}:{line}: imports {name}")
        if rel in NAMING_ALLOWED:
            continue
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in skip and LEARNING in node.value):
                out.append(f"{rel}:{node.lineno}: names {LEARNING} in a string")
    return out


def construction_violations(src_root: Path, name: str, sites: set[str],
                            defined_in: str = "edgar/events.py") -> list[str]:
    """``name`` called, imported under another name or looked up by string outside ``sites``."""
    out = []
    for rel, _module, tree in modules(src_root):
        if rel in sites:
            continue
        # a name compared with (reading a session log's "type" field) builds nothing
        compared = {id(c) for n in ast.walk(tree) if isinstance(n, ast.Compare)
                    for c in (n.left, *n.comparators)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else (
                    func.attr if isinstance(func, ast.Attribute) else None)
                if called == name:
                    out.append(f"{rel}:{node.lineno}: constructs {name}")
            elif isinstance(node, ast.alias) and node.name == name and node.asname:
                out.append(f"{rel}: imports {name} under another name")
            elif (isinstance(node, ast.Constant) and node.value == name
                  and rel != defined_in and id(node) not in compared):
                out.append(f"{rel}:{node.lineno}: names {name} in a string")
    return out


def prompt_typed_violations(src_root: Path) -> list[str]:
    return construction_violations(src_root, "PromptTyped", PROMPT_SITES)


def model_responded_violations(src_root: Path) -> list[str]:
    return construction_violations(src_root, "ModelResponded", MODEL_CALL_SITES)


def conversation_violations(src_root: Path) -> list[str]:
    out = []
    for rel, module, tree in modules(src_root):
        is_package = rel.endswith("__init__.py")
        for node in ast.walk(tree):
            if rel == "edgar/conversation.py":
                if isinstance(node, ast.Import):
                    out += [f"{rel}:{node.lineno}: imports {a.name}" for a in node.names
                            if a.name.split(".")[0] == "edgar"]
                elif isinstance(node, ast.ImportFrom):
                    target = _resolve(node, module, is_package)
                    if node.level or target.split(".")[0] == "edgar":
                        out.append(f"{rel}:{node.lineno}: imports {target}")
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(node, module, is_package)
                if target == CONVERSATION:
                    continue
                if target.startswith(("edgar.providers", "edgar.events", "edgar.tools")):
                    for a in node.names:
                        if a.name in CONVERSATION_NAMES:
                            out.append(f"{rel}:{node.lineno}: takes {a.name} from {target}, "
                                       f"not {CONVERSATION}")
    return out


def cli_from_learning_violations(src_root: Path) -> list[str]:
    out = []
    for rel, module, tree in modules(src_root):
        if not rel.startswith("edgar/learning/"):
            continue
        for line, name in imports(tree, module, rel.endswith("__init__.py")):
            if name == "edgar.cli" or name.startswith("edgar.cli."):
                out.append(f"{rel}:{line}: imports {name}")
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in skip and node.value.startswith("edgar.cli")):
                out.append(f"{rel}:{node.lineno}: names {node.value} in a string")
    return out


def subscribe_violations(src_root: Path) -> list[str]:
    out = []
    for rel, _module, tree in modules(src_root):
        if rel in SUBSCRIBE_SITES:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "subscribe"):
                out.append(f"{rel}:{node.lineno}: subscribes to the bus")
    return out


SDKS = ("anthropic", "openai", "litellm")
# the rest of the `test` extra (ADR-0066); msgspec is not here: edgar imports it when installed
TEST_ONLY = SDKS + ("pytest", "hypothesis", "pexpect", "pyte", "mcp_server_time")


def sdk_violations(src_root: Path, forbidden: tuple[str, ...] = SDKS) -> list[str]:
    """A module of edgar that imports one of ``forbidden`` (by default the provider SDKs and
    litellm; ``TEST_ONLY`` adds every other test-only dependency)."""
    out = []
    for rel, module, tree in modules(src_root):
        for line, name in imports(tree, module, rel.endswith("__init__.py")):
            if name.split(".")[0] in forbidden:
                out.append(f"{rel}:{line}: imports {name}")
    return out


MODES_HOME = "edgar/tools/modes.py"
def _modes() -> set[str]:
    from edgar.tools.modes import MODES

    return set(MODES)


PERMISSION_MODES = _modes()


def mode_list_violations(src_root: Path) -> list[str]:
    """The permission modes are named once; every other module imports them."""
    out = []
    for rel, _module, tree in modules(src_root):
        if rel == MODES_HOME:
            continue
        for node in ast.walk(tree):
            items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else []
            words = {e.value for e in items if isinstance(e, ast.Constant)}
            if len(words & PERMISSION_MODES) >= 2:
                out.append(f"{rel}:{node.lineno}: lists the permission modes")
    return out


SESSION_MODULE = "edgar/core/session.py"
# what a session changes as it runs: the conversation, its counters, the model /model picks
SESSION_STATE = {"messages", "provider", "cost", "cost_known", "usage", "turns", "prompt"}
GROWERS = {"append", "extend", "insert", "clear", "pop", "remove", "update", "add"}


def session_fields(src_root: Path) -> set[str]:
    """The annotated fields of ``class Session`` in core/session.py."""
    tree = ast.parse((src_root / SESSION_MODULE).read_text(encoding="utf-8"))
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Session"]
    return {n.target.id for n in cls.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def _is_session(node: ast.expr) -> bool:
    """``session``, ``app.session``, ``self.session`` … (what holds a Session, by name)."""
    return ((isinstance(node, ast.Name) and node.id == "session")
            or (isinstance(node, ast.Attribute) and node.attr == "session"))


def session_wiring_violations(src_root: Path) -> list[str]:
    wiring = session_fields(src_root) - SESSION_STATE
    out = []
    for rel, _module, tree in modules(src_root):
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                if (isinstance(target, ast.Attribute) and target.attr in wiring
                        and _is_session(target.value)):
                    out.append(f"{rel}:{node.lineno}: assigns session.{target.attr}")
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr in GROWERS
                    and isinstance(func.value, ast.Attribute) and func.value.attr in wiring
                    and _is_session(func.value.value)):
                out.append(f"{rel}:{node.lineno}: changes session.{func.value.attr}")
            if (isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) >= 2
                    and _is_session(node.args[0]) and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in wiring):
                out.append(f"{rel}:{node.lineno}: assigns session.{node.args[1].value}")
    return out


# --- the import graph: no circle, no upward arrow (issue 27 item 3) -------------------------

# Who may not import whom: a package on the left never imports one on the right, at top level,
# in a function or under TYPE_CHECKING. The order is design.md §2's: the shared vocabulary at
# the floor, the sandbox below everything that starts a process, core below the CLI, and the
# CLI (the composition root) at the top.
FLOORS = ("edgar.conversation", "edgar.events", "edgar.bus", "edgar.paths")
UPWARD: dict[str, tuple[str, ...]] = {
    "edgar.sandbox": ("edgar.config", "edgar.core", "edgar.tools", "edgar.providers",
                      "edgar.hooks", "edgar.mcp", "edgar.cli", "edgar.memory"),
    "edgar.providers": ("edgar.core", "edgar.tools", "edgar.cli", "edgar.hooks", "edgar.mcp"),
    "edgar.tools": ("edgar.core", "edgar.cli", "edgar.hooks", "edgar.mcp"),
    "edgar.core": ("edgar.cli",),
    "edgar.hooks": ("edgar.cli",),
    "edgar.mcp": ("edgar.cli",),
    "edgar.memory": ("edgar.core", "edgar.cli", "edgar.tools", "edgar.providers"),
    "edgar.redact": ("edgar.core", "edgar.cli", "edgar.tools", "edgar.providers",
                     "edgar.sandbox", "edgar.config"),
    "edgar.storage": ("edgar.core", "edgar.cli", "edgar.tools", "edgar.memory"),
    "edgar.transcripts": ("edgar.core", "edgar.cli", "edgar.tools", "edgar.memory",
                          "edgar.learning"),
}


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def import_graph(src_root: Path) -> dict[str, dict[str, int]]:
    """module -> {edgar module it imports: first line}. ``from pkg import sub`` is an arrow to
    the submodule only; a parent package's ``__init__`` is not counted (Python runs it for
    every submodule, so it cannot make a circle of its own)."""
    parsed = [(rel, name, tree) for rel, name, tree in modules(src_root)]
    known = {name for _, name, _ in parsed}
    graph: dict[str, dict[str, int]] = {}
    for rel, name, tree in parsed:
        is_package = rel.endswith("__init__.py")
        arrows: dict[str, int] = {}
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(node, name, is_package)
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
                targets = subs if len(subs) == len(node.names) else [base, *subs]
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name and not _within(name, target):
                    arrows.setdefault(target, node.lineno)
        graph[name] = arrows
    return graph


def circle_violations(src_root: Path) -> list[str]:
    """Every import circle among edgar's modules, as one line naming its arrows."""
    graph = import_graph(src_root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(start: str) -> None:   # Tarjan's, iterative: deep graphs must not recurse
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.append(top)
                    if top == node:
                        break
                if len(part) > 1:
                    circles.append(sorted(part))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    out = []
    for part in circles:
        inside = set(part)
        arrows = [f"{a} -> {b} (line {graph[a][b]})" for a in part
                  for b in sorted(graph[a]) if b in inside]
        out.append("import circle: " + "; ".join(arrows))
    return out


def upward_violations(src_root: Path) -> list[str]:
    """Every arrow from a lower package to a higher one (``UPWARD``), and from the floor to
    anything of edgar's but the floor."""
    out = []
    for name, arrows in import_graph(src_root).items():
        for target, line in sorted(arrows.items()):
            if name in FLOORS and target not in FLOORS:
                out.append(f"{name}:{line}: the floor imports {target}")
            for lower, higher in UPWARD.items():
                if _within(name, lower) and any(_within(target, h) for h in higher):
                    out.append(f"{name}:{line}: {lower} imports {target} (upward)")
    return out
