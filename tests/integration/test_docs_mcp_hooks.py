"""docs/mcp-hooks.md works as written: its files are copied byte for byte into a project and
driven with ``edgar -p`` (a scripted model, real hooks, the real mcp-server-time)."""

from __future__ import annotations

import json
import re

from support.project import REPO, edgar_env, make_project, recorded, run_edgar, write_script

DOC = REPO / "docs" / "mcp-hooks.md"
BLOCK = re.compile(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", re.S)


def doc_files() -> dict[str, str]:
    return dict(BLOCK.findall(DOC.read_text(encoding="utf-8")))


def test_the_doc_has_the_four_files():
    assert set(doc_files()) == {".mcp.json", ".edgar/hooks/no_rm_rf.py", ".edgar/hooks/tidy.py",
                                ".edgar/config.toml"}


def test_the_worked_examples_work_as_written(tmp_path):
    root = make_project(tmp_path / "proj", {**doc_files(), "build/out.o": "binary\n"})
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [
            {"name": "write", "input": {"path": "notes.txt", "content": "one   \ntwo\t\n\n\n"}},
            {"name": "shell", "input": {"command": "rm -rf build"}},
            {"name": "read", "input": {"path": "notes.txt"}},
            {"name": "mcp__time__convert_time", "input": {
                "source_timezone": "UTC", "time": "09:30", "target_timezone": "Asia/Kolkata"}},
        ]},
        {"text": "done"}])
    record = tmp_path / "requests.jsonl"
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record))
    assert run_edgar(["mcp", "trust"], root, env).returncode == 0
    out = run_edgar(["-p", "tidy up", "--model", f"scripted:{script}", "--permission-mode", "yes",
                     "--output-format", "json"], root, env)
    assert out.returncode == 0, out.stderr
    tools = json.loads(out.stdout)["tools"]
    assert [(t["name"], t["ok"]) for t in tools] == [
        ("write", True), ("shell", False), ("read", True), ("mcp__time__convert_time", True)]
    assert (root / "notes.txt").read_text() == "one\ntwo\n"        # tidied by the formatter
    assert (root / "build" / "out.o").exists()                        # rm -rf was refused
    sent = json.dumps(recorded(record)[1])
    assert ("refused by a PreToolUse hook: rm -rf is blocked in this project; delete files "
            "one by one") in sent
    assert "1\\tone\\n     2\\ttwo" in sent                  # the read saw the tidied file
    assert "15:00" in sent                                     # 09:30 UTC in Kolkata
