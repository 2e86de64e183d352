"""A checkpoint manifest is believed only in the shape edgar writes (issue 21 item 10): what
the recorder writes passes, any one field of the wrong kind is named, and no JSON value at all
makes the check raise."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgar.core import manifest
from edgar.core.checkpoints import Checkpoints
from edgar.events import TurnStarted
from edgar.storage.broken import BrokenState

text = st.text(max_size=20)
digests = st.one_of(st.none(), st.text(alphabet="0123456789abcdef", min_size=64, max_size=64))
copied = st.fixed_dictionaries({
    "path": text, "existed": st.just(True), "blob": st.integers(0, 99).map(str),
    "mode": st.integers(0, 0o7777), "before": digests}, optional={"after": digests})
new_file = st.fixed_dictionaries({
    "path": text, "existed": st.just(False), "blob": st.none(), "mode": st.none(),
    "before": st.none()}, optional={"after": digests})
too_big = st.fixed_dictionaries({
    "path": text, "existed": st.just(True), "blob": st.none(), "mode": st.none(),
    "before": st.none(), "too_big": st.integers(1, 10**9)})
shell = st.fixed_dictionaries({"path": text}, optional={"untracked": st.booleans(),
                                                        "after": digests})
manifests = st.fixed_dictionaries({
    "session": text, "turn": text, "created": st.floats(0, 2e9),
    "files": st.lists(st.one_of(copied, new_file, too_big), max_size=4),
    "shell": st.lists(shell, max_size=4)})
json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                                     text),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(text, inner, max_size=4)),
                           max_leaves=20)


@given(manifests)
def test_what_the_recorder_writes_is_believed(data):
    assert manifest.problem(data) is None
    assert manifest.problem(json.loads(json.dumps(data))) is None


@given(manifests, st.data())
def test_one_field_of_the_wrong_kind_is_named(data, draw):
    lists = [k for k in ("files", "shell") if data[k]]
    if lists and draw.draw(st.booleans()):
        key = draw.draw(st.sampled_from(lists))
        i = draw.draw(st.integers(0, len(data[key]) - 1))
        field = draw.draw(st.sampled_from(["path", "existed"] if key == "files" else ["path"]))
        data[key][i][field] = draw.draw(st.sampled_from([None, 3, [], {}]))
        why = manifest.problem(data)
        assert why is not None and why.startswith(f"{key}[{i}].{field}"), why
    else:
        field = draw.draw(st.sampled_from(["session", "turn", "created", "files", "shell"]))
        data[field] = draw.draw(st.sampled_from([None, True, {}, "x"] if field != "created"
                                                else [None, True, "soon", []]))
        if field in ("session", "turn") and isinstance(data[field], str):
            return   # text is what they are
        assert manifest.problem(data) is not None


@given(json_values)
def test_no_json_value_makes_the_check_raise(value):
    why = manifest.problem(value)
    assert why is None or isinstance(why, str)


@pytest.mark.parametrize("blob", ["../../x", "/etc/passwd", "1/2", "", "٣"])
def test_a_copy_is_named_by_digits_only(blob):
    data = {"session": "s", "turn": "t", "created": 1.0, "shell": [],
            "files": [{"path": "a", "existed": True, "blob": blob, "mode": 420, "before": None}]}
    assert manifest.problem(data) == "files[0].blob does not name a copy"


def test_a_manifest_on_disk_is_read_or_refused_with_why(tmp_path):
    path = tmp_path / manifest.NAME
    assert manifest.read(path) == (None, None)
    for raw, why in ((b"{x", "is not JSON"), (b"\xff", "is not UTF-8 text"),
                     (b"[]", "is not an object")):
        path.write_bytes(raw)
        found, said = manifest.read(path)
        assert found is None and said is not None and said.startswith(why), said
    path.unlink()
    path.mkdir()
    assert manifest.read(path) == (None, "is not a file")


def test_the_store_names_a_damaged_manifest_and_skips_one_moved_aside(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    store = Checkpoints(root, tmp_path / "state", "s1")
    for turn in ("t1", "t2"):
        store.on_turn_started(TurnStarted(session_id="s1", turn_id=turn))
        (root / "a.txt").write_text(turn)
        store.before_write(str(root / "a.txt"))
        store.after_write(str(root / "a.txt"))
    assert [m["turn"] for _, m in store.turns()] == ["t1", "t2"]
    newest = store.turns()[-1][0]
    (newest / manifest.NAME).write_text('{"files": 5}')
    with pytest.raises(BrokenState) as raised:
        store.turns()
    assert str(raised.value) == (f"{newest / manifest.NAME} has no text session — move it "
                                 "aside or run `edgar doctor --repair`")
    with pytest.raises(BrokenState):
        asyncio.run(store.undo(1))
    assert [t for t, _ in store.damaged()] == [newest]
    newest.rename(newest.with_name(newest.name + ".broken-20260101T000000"))
    assert [m["turn"] for _, m in store.turns()] == ["t1"] and store.damaged() == []
