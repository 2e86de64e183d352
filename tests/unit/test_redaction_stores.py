"""Issue 12's hand-found cases, through the real stores: history.md, the session log, memory.db,
imports.db, input history — each written for real, then read back as bytes. And every file
that holds session text is 0600 (its directory 0700), also when it existed before."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from support.project import state_of

from edgar.core.project import ensure_state_dir
from edgar.core.sessionlog import SessionLog
from edgar.memory.store import MemoryStore
from edgar.redact import Redactor

pytest.importorskip("edgar.learning")

from edgar.learning.experience import Experience, Run  # noqa: E402
from edgar.learning.history import History  # noqa: E402
from edgar.learning.import_store import DrySink, ImportStore  # noqa: E402
from edgar.transcripts.claude_code.values import ScanMark  # noqa: E402

GHP = "ghp_R8fK2mQ9xLp3ZvT7wR1nB5cY6dH0jE4sA2uV"
AKIA = "AKIAQ3EGRLV5XKZ7TP4N"
redact = Redactor()

# (text somebody typed or a tool printed, the secret in it)
CASES = [
    (f"read creds_{AKIA}.json please", AKIA),
    (f"token_{GHP}", GHP),
    (f"GET /x?q=%20{GHP}", GHP),
    ("DB_PASSWORD=MySecret2024", "MySecret2024"),
    ("password: TopSecret99", "TopSecret99"),
    ("export PGPASSWORD=Sup3rS3cretPassw0rd;", "Sup3rS3cretPassw0rd"),
    ("password=hunter2secret", "hunter2secret"),
    ("curl -u admin:Pa55w0rdX https://api.example.com/", "Pa55w0rdX"),
    ("mysql -uroot -pS3cr3tPW app", "S3cr3tPW"),
    ("git clone https://Zx81kLmN0pQrStUv12Wx@github.com/org/repo.git", "Zx81kLmN0pQrStUv12Wx"),
    ("glpat-aB3dE6gH9jK2mN5pQ8sT", "glpat-aB3dE6gH9jK2mN5pQ8sT"),
    # bare
    ("the token is 8fK2mQ9xLp3ZvT7wR1nB5cY6dH0jE4sA, keep it", "8fK2mQ9xLp3ZvT7wR1nB5cY6dH0jE4sA"),
    ("GH_PAT=Qw3rTy7uIo9pAs2dFg5h\nHOME=/root", "Qw3rTy7uIo9pAs2dFg5h"),
    ("SSH_KEY=-----BEGIN OPENSSH PRIVATE KEY-----\\n"
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\\n"
     "-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB"),
]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def everything(state: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(state.rglob("*")) if p.is_file())


@pytest.mark.parametrize(("text", "secret"), CASES)
def test_history_session_log_and_memory_hold_no_case(tmp_path: Path, text: str,
                                                     secret: str) -> None:
    state = ensure_state_dir(tmp_path)
    History(state, redact).append(Run(session_id="s1", asked=[text], said=f"ok: {text}", files=[]))
    log = SessionLog(state / "sessions" / "s1.jsonl", redact)
    log.mark("tool_output", output=text, input={"command": text})
    log.close()
    with MemoryStore(state / "memory.db", redact=redact) as memory:
        memory.add(f"always remember {text}", "manual", source=f"typed {text}")
    assert secret.encode() not in everything(state)


def test_history_redacts_before_it_shortens(tmp_path: Path) -> None:
    filler = " ".join(f"word{i}" for i in range(36))
    state = ensure_state_dir(tmp_path)
    History(state, redact).append(
        Run(asked=[f"{filler} db password: 'correct horse battery staple'"]))
    text = (state / "history.md").read_text()
    assert "correct" not in text and "horse" not in text
    assert "password: '[REDACTED:password]" in text


def test_history_files_line_holds_no_token(tmp_path: Path) -> None:
    state = ensure_state_dir(tmp_path)
    History(state, redact).append(Run(tools=["write"], files=[f"{GHP}_{AKIA}.txt", "src/ok.py"]))
    text = (state / "history.md").read_text()
    assert GHP not in text and AKIA not in text and "src/ok.py" in text


def test_session_log_redacts_keys_of_every_object(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = SessionLog(path, redact)
    log.mark("tool_use", input={GHP: "k", "nested": [{AKIA: {"x": 1}}]})
    log.close()
    raw = path.read_text()
    assert GHP not in raw and AKIA not in raw
    assert json.loads(raw)["input"]["nested"][0] == {"[REDACTED:aws-access-token]": {"x": 1}}


def test_import_paths_are_stored_redacted_and_still_found(tmp_path: Path) -> None:
    state = ensure_state_dir(tmp_path)
    transcript = f"/home/me/.claude/projects/{GHP}/session.jsonl"
    store = ImportStore(state / "imports.db")
    mark = ScanMark(size=10, offset=10, line=2)
    store.save([], transcript, mark)
    store.save_dir(transcript.rsplit("/", 1)[0], "digest")
    assert store.mark(transcript) == mark  # found again by the real path
    store.close()
    dry = DrySink(state)
    assert (dry.marks.get(transcript) == mark
            and dry.dirs.get(transcript.rsplit("/", 1)[0]) == "digest")
    with MemoryStore(state / "memory.db", redact=redact) as memory:
        memory.add("staging is read-only", "imported", source=f"claude-code {transcript}:3")
    with Experience(state / "experience.db", redact=redact) as experience:
        experience.insert([Run(source="claude-code", turn_id=f"{GHP}.jsonl:3",
                               project=f"/p/{GHP}")])
    assert GHP.encode() not in everything(state)
    for db in ("imports.db", "memory.db", "experience.db"):
        rows = sqlite3.connect(state / db).iterdump()
        assert not any(GHP in row for row in rows), db


def test_every_file_of_a_session_is_private(tmp_path: Path) -> None:
    state = ensure_state_dir(tmp_path)
    History(state, redact).append(Run(asked=["hi"]))
    log = SessionLog(state / "sessions" / "s.jsonl", redact)
    log.mark("x")
    with MemoryStore(state / "memory.db", redact=redact) as memory, \
            Experience(state / "experience.db", redact=redact), ImportStore(state / "imports.db"):
        memory.add("always run the tests", "manual")
        assert (state / "memory.db-wal").exists()  # a live WAL: its mode is checked too
        for path in sorted(state.rglob("*")):
            if path.name == ".gitignore":
                continue  # edgar's own text, no session in it
            assert mode(path) == (0o700 if path.is_dir() else 0o600), path
    log.close()
    assert mode(state) == 0o700


def test_existing_files_are_tightened_on_open(tmp_path: Path) -> None:
    state = state_of(tmp_path)
    state.mkdir(mode=0o755, parents=True)
    os.chmod(state, 0o755)
    for name in ("memory.db", "history.md", "input_history"):
        (state / name).touch(mode=0o644)
        os.chmod(state / name, 0o644)
    (state / "memory.db-wal").touch()
    os.chmod(state / "memory.db-wal", 0o644)
    (state / "sessions").mkdir()
    (state / "sessions" / "old.jsonl").write_text("")
    os.chmod(state / "sessions" / "old.jsonl", 0o644)
    ensure_state_dir(tmp_path)
    memory = MemoryStore(state / "memory.db", redact=redact)
    assert mode(state / "memory.db-wal") == 0o600  # tightened before SQLite reuses it
    memory.close()
    History(state, redact).append(Run(asked=["hi"]))
    SessionLog(state / "sessions" / "old.jsonl", redact).close()
    pytest.importorskip("prompt_toolkit")
    from edgar.cli.input_history import RedactedFileHistory

    RedactedFileHistory(state / "input_history", redact)
    assert mode(state) == 0o700
    for name in ("memory.db", "history.md", "input_history", "sessions/old.jsonl"):
        assert mode(state / name) == 0o600, name


def test_learning_stores_given_no_redactor_still_redact(tmp_path: Path) -> None:
    """No learning store defaults to the identity (issue 21, smaller items): one built without
    a redactor uses edgar's own, so a caller that forgets one still writes no secret."""
    from edgar.bus import Bus
    from edgar.events import Event, PromptTyped, TextDelta, TurnFinished, TurnStarted
    from edgar.learning.experience import Recorder
    from edgar.learning.history import entry
    from edgar.learning.import_store import to_run
    from edgar.transcripts.claude_code.values import Exchange, Typed

    state = ensure_state_dir(tmp_path)
    typed = f"deploy with token_{GHP} and {AKIA}"
    assert GHP not in entry(Run(asked=[typed], said=typed, files=[f"{GHP}.txt"]))
    History(state).append(Run(asked=[typed], said=typed, files=[f"{AKIA}.txt"]))
    with Experience(state / "experience.db") as experience:
        experience.record(Run(session_id="s1", turn_id="t1", asked=[typed], said=typed,
                              files=[f"{GHP}.txt"], project=f"/p/{AKIA}"))
    question = Typed(file="/x/s.jsonl", line=1, session_id="s2", timestamp=None,
                     source="typed", text=typed)
    imported = to_run(Exchange(file="/x/s.jsonl", session_id="s2", line=1, question=question,
                               followups=(), replies=(), evidence=(), tool_results=0,
                               end_line=1), 0.0)
    assert GHP not in " ".join(imported.asked) and AKIA not in " ".join(imported.asked)

    runs: list[Run] = []
    bus = Bus()
    bus.subscribe(Event, Recorder([runs.append]))
    bus.publish(PromptTyped(text="hi", session_id="s3"))
    bus.publish(TurnStarted(session_id="s3", turn_id="t1"))
    bus.publish(TextDelta(text=typed, session_id="s3", turn_id="t1"))
    bus.publish(TurnFinished(outcome="ok", duration=1.0, session_id="s3", turn_id="t1"))
    [run] = runs
    assert run.said and GHP not in run.said and AKIA not in run.said
    assert GHP.encode() not in everything(state) and AKIA.encode() not in everything(state)
    rows = list(sqlite3.connect(state / "experience.db").iterdump())
    assert not any(GHP in row or AKIA in row for row in rows)


def test_session_log_scans_a_repeated_short_string_once_and_redacts_every_line(
        tmp_path: Path) -> None:
    # the memo of short strings (issue 26 item 1): the same key or value in many lines is
    # scanned once, and every line that holds it is still written redacted
    scanned: list[str] = []

    def counting(text: str) -> str:
        scanned.append(text)
        return redact(text)

    path = tmp_path / "s.jsonl"
    log = SessionLog(path, counting)
    long_value = f"{'x' * 300} {GHP}"
    for n in range(3):
        log.mark("tool_use", input={GHP: AKIA, "n": n, "long": long_value})
    log.close()
    raw = path.read_text()
    assert GHP not in raw and AKIA not in raw and raw.count("[REDACTED:") == 9
    assert scanned.count(GHP) == 1 and scanned.count(AKIA) == 1 and scanned.count("tool_use") == 1
    assert scanned.count(long_value) == 3   # longer than the memo keeps: scanned every time
    assert [json.loads(line)["input"]["n"] for line in raw.splitlines()] == [0, 1, 2]
