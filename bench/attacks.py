"""Issue 21's attacks tried / held: each attack of the issue, run by its tests, as root and as
the ordinary user, with bubblewrap present and hidden.

    python bench/attacks.py [--workers N] [--keep-xml PATH] [-k EXPR]

``ATTACKS`` maps each attack the issue lists to the tests that try it (pytest node ids,
without their parameters). The script runs those tests once, with pytest in a subprocess
(``-n N`` when pytest-xdist is installed), reads the JUnit XML it writes, and sorts every
test case into a column by its parameter id: ``root-bwrap``, ``root-no-bwrap``, ``user-bwrap``,
``user-no-bwrap`` (``support.hostile.KINDS``); ``[root]``/``[user]`` (``support.user_edgar``:
bubblewrap as installed); no such id: the uid and bubblewrap the suite runs with. A cell is
``held`` when every case in it passed, ``FAILED n/m`` when any failed or errored, ``skipped``
when all skipped and ``-`` (not run) when no test of that attack runs that way. Nothing is
hard-coded: a test that fails shows as failed; an attack whose test has no parametrization
for a kind shows ``-`` there. Prints the load average; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
E2E = "tests/e2e"

# the attacks, in its order, and the tests that try each one
ATTACKS: list[tuple[str, list[str]]] = [
    ("fsmonitor in a nested repo the model made", [
        f"{E2E}/test_edgar_git_hostile.py::test_a_nested_repository_with_an_fsmonitor_payload_is_not_run"]),
    ("submodule .git/modules/*/config written by the model", [
        f"{E2E}/test_edgar_git_hostile.py::test_a_submodules_config_written_by_the_model_is_not_run",
        f"{E2E}/test_edgar_git_hostile.py::test_an_existing_submodules_config_and_hooks_are_protected"]),
    ("cloned repo arriving with core.fsmonitor (and other programs)", [
        f"{E2E}/test_edgar_git_hostile.py::test_a_cloned_repository_arriving_with_programs_in_its_config_runs_none"]),
    ("committed .edgar/memory.db and sessions/*.jsonl", [
        f"{E2E}/test_state_outside_repo.py::test_a_cloned_repository_ships_no_facts_and_no_session"]),
    ("undo writes/deletes through planted links", [
        f"{E2E}/test_undo_attacks.py::test_undo_does_not_write_or_delete_through_a_link_into_git_hooks",
        f"{E2E}/test_undo_attacks.py::test_undo_does_not_replace_or_remove_edgars_state_through_a_link",
        f"{E2E}/test_undo_attacks.py::test_a_planted_checkpoint_manifest_cannot_write_outside_or_into_git"]),
    ("write during a renameat2 swap race", [
        f"{E2E}/test_undo_attacks.py::test_forty_writes_during_a_renameat2_swap_loop_never_land_in_git_config"]),
    ("undo discarding the person's edits", [
        f"{E2E}/test_undo_attacks.py::test_undo_stops_and_names_the_file_the_person_changed_since",
        f"{E2E}/test_undo_attacks.py::test_a_change_between_two_turns_stops_an_undo_of_both"]),
    ("protected paths before they exist", [
        f"{E2E}/test_edgar_git_hostile.py::test_protected_paths_that_did_not_exist_cannot_be_planted"]),
    ("trusted hook's script rewritten by the model", [
        f"{E2E}/test_trust_runs_held.py::test_the_model_cannot_change_a_trusted_hook_script"]),
    ("secret-bearing variables reach shell and hooks", [
        f"{E2E}/test_env_secrets_held.py::test_no_secret_variable_reaches_the_shell_or_a_hook"]),
    ("ordinary user gets what root gets + RLIMIT_NPROC", [
        f"{E2E}/test_ordinary_user_layers.py::test_doctor_reports_the_layers_the_command_gets_and_processes_are_capped"]),
    ("error fact carrying a name the model chose", [
        f"{E2E}/test_error_fact_names.py::test_a_name_the_model_planted_never_reaches_a_fact",
        "tests/unit/test_committed.py::test_the_sandboxed_cat_file_holds_as_root_and_user_with_and_without_bwrap"]),
    ("prompt a UserPromptSubmit hook refused is learned", [
        f"{E2E}/test_prompt_hook_blocks.py::test_a_blocked_prompt_is_not_published_learned_logged_or_sent"]),
    ("broken state files give a traceback", [
        f"{E2E}/test_broken_state.py::test_a_broken_database_is_one_located_line_and_repair_moves_it_aside",
        f"{E2E}/test_broken_state.py::test_continue_skips_a_session_line_of_the_wrong_shape_naming_file_and_line",
        f"{E2E}/test_broken_state.py::test_a_dot_edgar_that_is_a_file_is_said_init_stops_and_repair_moves_it_aside",
        f"{E2E}/test_repl_broken_history.py::test_a_broken_input_history_is_said_and_the_session_goes_on"]),
]
KINDS = ["root-bwrap", "root-no-bwrap", "user-bwrap", "user-no-bwrap"]
HERE = ("root" if os.geteuid() == 0 else "user") + ("-bwrap" if shutil.which("bwrap") else "-no-bwrap")


def kind_of(params: str) -> str:
    """The column of a test case from its parameter id."""
    found = re.search(r"(?:^|-)(root|user)-(bwrap|no-bwrap)(?:-|$)", params)
    if found:
        return f"{found[1]}-{found[2]}"
    who = re.search(r"(?:^|-)(root|user)(?:-|$)", params)
    if who:   # support.user_edgar: that user, bubblewrap as installed
        return who[1] + ("-bwrap" if shutil.which("bwrap") else "-no-bwrap")
    return HERE


def outcomes(xml: Path) -> dict[tuple[str, str], list[str]]:
    """(node id without parameters, kind) -> the outcome of each case."""
    out: dict[tuple[str, str], list[str]] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/") + ".py"
        name = case.get("name", "")
        base, _, params = name.partition("[")
        node = f"{module}::{base}"
        state = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                state = "failed"
            elif child.tag == "skipped":
                state = "skipped"
        out.setdefault((node, kind_of(params.rstrip("]"))), []).append(state)
    return out


def cell(states: list[str]) -> str:
    if not states:
        return "-"
    bad = sum(s == "failed" for s in states)
    if bad:
        return f"FAILED {bad}/{len(states)}"
    if all(s == "skipped" for s in states):
        return "skipped"
    return "held"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", default="2", help="pytest-xdist workers (default 2; 0: none)")
    ap.add_argument("--keep-xml", type=Path, help="keep pytest's JUnit XML here")
    ap.add_argument("-k", dest="select", help="only attacks whose name contains this")
    args = ap.parse_args()
    attacks = [(a, nodes) for a, nodes in ATTACKS if not args.select or args.select in a]
    nodes = sorted({n for _, ns in attacks for n in ns})
    xml = args.keep_xml or Path(tempfile.mkdtemp(prefix="edgar-attacks-")) / "junit.xml"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}",
           "-o", "junit_family=xunit2", *nodes]
    if args.workers != "0":
        cmd[3:3] = ["-n", args.workers]
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; running {len(nodes)} tests "
          f"(pytest in {REPO})", flush=True)
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    if not xml.exists():
        sys.exit(f"pytest wrote no report (exit {done.returncode}):\n{done.stdout[-3000:]}"
                 f"{done.stderr[-3000:]}")
    seen = outcomes(xml)
    missing = [n for n in nodes if not any(node == n for node, _ in seen)]
    width = max(len(a) for a, _ in attacks)
    print(f"\n{'attack':<{width}}  " + "  ".join(f"{k:<13}" for k in KINDS))
    held = tried = 0
    for attack, ns in attacks:
        row = []
        for kind in KINDS:
            states = [s for n in ns for s in seen.get((n, kind), [])]
            text = cell(states)
            row.append(text)
            if text not in ("-", "skipped"):
                tried += 1
                held += text == "held"
        print(f"{attack:<{width}}  " + "  ".join(f"{c:<13}" for c in row))
    print(f"\nattack x kind cells tried: {tried}, held: {held}; pytest exit {done.returncode}")
    if missing:
        print("tests named in ATTACKS that pytest did not report (renamed or removed?):")
        for n in missing:
            print(f"  {n}")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
