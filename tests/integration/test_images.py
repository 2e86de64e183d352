"""Images reach the model as images, and attachments are bounded (issue 25, items 2 and 3).

Real PNG, JPEG, GIF and WebP files (tests/data/images, and large ones made here), the real
providers against the loopback server (every body checked against the official SDKs' request
types), the scripted provider's recorded requests, and the ``edgar`` command itself."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script
from support.sse_server import stream

from edgar.cli.attach import ATTACH_MAX_BYTES, AttachRefused, at_paths, attached, pasted_images
from edgar.cli.oneshot import run_prompt
from edgar.cli.setup import build
from edgar.config import Settings
from edgar.conversation import ImageBlock, Message, TextBlock, ToolResultBlock
from edgar.core.sessionlog import SessionLog, images_dir, load
from edgar.images import MAX_BASE64, MAX_SIDE, ImageRefused, kind, to_block

IMAGES = Path(__file__).resolve().parents[1] / "data" / "images"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    root = make_project(tmp_path / "proj", {"notes.txt": "hello\n"})
    for name in ("screenshot.png", "photo.jpg", "diagram.gif", "icon.webp"):
        (root / name).write_bytes((IMAGES / name).read_bytes())
    return root


def test_the_four_kinds_are_told_by_their_bytes_not_their_names(tmp_path):
    expected = {"screenshot.png": "image/png", "photo.jpg": "image/jpeg",
                "diagram.gif": "image/gif", "icon.webp": "image/webp"}
    for name, media in expected.items():
        data = (IMAGES / name).read_bytes()
        assert kind(data[:16]) == media
        ready = to_block(data, name)
        assert ready.note is None and ready.block.media_type == media
        assert base64.b64decode(ready.block.data) == data       # sent as it is, byte for byte
    assert kind(b"%PDF-1.7") is None and kind(b"hello") is None


def test_an_image_over_the_limits_is_resized_and_said(tmp_path):
    from PIL import Image

    wide = tmp_path / "wide.png"
    Image.new("RGB", (4000, 1000), "#c0ffee").save(wide)
    ready = to_block(wide.read_bytes(), "wide.png")
    assert (ready.block.width, ready.block.height) == (MAX_SIDE, 500)
    assert "resized from 4000×1000" in ready.note
    # noise does not compress: a 2000x2000 PNG of it is over 5 MB, and goes as a JPEG under it
    noise = tmp_path / "noise.png"
    Image.frombytes("RGB", (2000, 2000), os.urandom(2000 * 2000 * 3)).save(noise)
    assert len(base64.b64encode(noise.read_bytes())) > MAX_BASE64
    ready = to_block(noise.read_bytes(), "noise.png")
    assert len(ready.block.data) <= MAX_BASE64 and ready.block.media_type == "image/jpeg"
    assert Image.open(__import__("io").BytesIO(base64.b64decode(ready.block.data))).format == "JPEG"


def test_what_cannot_be_sent_is_refused_in_one_line():
    with pytest.raises(ImageRefused, match="not a readable image"):
        to_block(b"\x89PNG\r\n\x1a\n" + b"\0" * 200, "broken.png")


def test_at_path_image_is_an_image_block_and_the_event_names_it(project):
    notes: list[str] = []
    [(source, body)] = at_paths("what is @screenshot.png?", project, project, notes)
    assert source == "@screenshot.png" and isinstance(body, ImageBlock)
    assert (body.width, body.height) == (120, 80)


def test_binary_files_that_are_not_images_are_refused(project):
    (project / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(AttachRefused, match="a binary file"):
        at_paths("look at @blob.bin", project, project)
    (project / "fake.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"junk" * 50)
    with pytest.raises(AttachRefused, match="not a readable image"):
        at_paths("look at @fake.png", project, project)


def test_a_big_text_file_is_capped_at_a_line_end_and_the_rest_is_offered(project):
    line = "x" * 99 + "\n"
    (project / "big.log").write_text(line * 30_000)        # 3 MB
    notes: list[str] = []
    [(_, body)] = at_paths("summarise @big.log", project, project, notes)
    assert isinstance(body, str) and len(body.encode()) < ATTACH_MAX_BYTES + 300
    kept = ATTACH_MAX_BYTES // 100
    assert body.count("\n") == kept + 1 and f"offset={kept + 1}" in body
    assert "256 KB" in body and "256 KB" in notes[0] and "3,000,000 bytes" in notes[0]


def test_pasted_absolute_image_paths_are_attached_wherever_they_are(project, tmp_path):
    shots = tmp_path / "Desktop"
    shots.mkdir()
    shot = shots / "Screen Shot 1.png"
    shot.write_bytes((IMAGES / "screenshot.png").read_bytes())
    for line in (f"what is wrong here {str(shot).replace(' ', chr(92) + ' ')}",
                 f"'{shot}' explain", f"see file://{str(shot).replace(' ', '%20')}"):
        [(_, body)] = pasted_images(line, project)
        assert isinstance(body, ImageBlock)
    # a relative mention is not a paste, and a non-image is nothing
    assert pasted_images("look at screenshot.png", project) == []
    assert pasted_images(f"{project / 'notes.txt'}", project) == []
    # both kinds together, each once
    both = attached("@photo.jpg and " + str(shot).replace(" ", "\\ "), project, project)
    assert [type(b) for _, b in both] == [ImageBlock, ImageBlock]


def script_app(project: Path, lines: list[dict], record: Path, monkeypatch):
    monkeypatch.setenv("EDGAR_SCRIPTED_RECORD", str(record))
    script = write_script(project / "script.jsonl", lines)
    return build(project, Settings(model=f"scripted:{script}", permission_mode="yes"),
                 learning=False)


def test_read_of_an_image_returns_the_image(project, tmp_path, monkeypatch):
    record = tmp_path / "requests.jsonl"
    app = script_app(project, [{"tool_calls": [{"name": "read", "input": {"path": "photo.jpg"}}]},
                               {"text": "a gradient"}], record, monkeypatch)
    try:
        assert asyncio.run(app.running(run_prompt(app, "what is photo.jpg?", fmt="quiet"))) == 0
        second = recorded(record)[1]["messages"][-1]["content"][0]
        assert second["type"] == "tool_result" and not second["is_error"]
        [image] = second["images"]
        assert (image["media_type"] == "image/jpeg"
                and (image["width"], image["height"]) == (160, 120))
        assert base64.b64decode(image["data"]) == (project / "photo.jpg").read_bytes()
        assert "image/jpeg, 160×120" in second["content"]
    finally:
        app.close()


def run_with(server, project: Path, model: str, prompt: str, attachments=None) -> int:
    app = build(project, Settings(model=model, permission_mode="yes"), learning=False)

    async def go() -> int:
        try:
            return await run_prompt(app, prompt, attachments, fmt="quiet")
        finally:
            await app.session.provider.aclose()
    try:
        return asyncio.run(app.running(go()))
    finally:
        app.close()


READ_THEN_ANSWER = ("anthropic_tool_read_image", "anthropic_text")


def anthropic_read(path: str) -> list[str]:
    from support.sse_server import anthropic_event

    return [anthropic_event("message_start", {"message": {
                "id": "m1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            anthropic_event("content_block_start", {"index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_img", "name": "read", "input": {}}}),
            anthropic_event("content_block_delta", {"index": 0, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps({"path": path})}}),
            anthropic_event("content_block_stop", {"index": 0}),
            anthropic_event("message_delta", {"delta": {"stop_reason": "tool_use"},
                                              "usage": {"output_tokens": 9}}),
            anthropic_event("message_stop", {})]


def test_anthropic_gets_base64_image_blocks_in_the_prompt_and_in_tool_results(
        server, provider_env, project):
    from support.sse_server import Reply

    server.anthropic(Reply(events=anthropic_read("screenshot.png")), stream("anthropic_text"))
    notes: list[str] = []
    files = attached("compare @photo.jpg", project, project, notes)
    assert run_with(server, project, "anthropic:claude-sonnet-4-6", "compare @photo.jpg",
                    files) == 0
    first, second = server.bodies()
    sent = first["messages"][0]["content"]
    assert sent[0] == {"type": "text", "text": "compare @photo.jpg"}
    assert sent[1]["text"] == '<image path="photo.jpg">'
    assert sent[2]["type"] == "image" and sent[2]["source"]["type"] == "base64"
    assert sent[2]["source"]["media_type"] == "image/jpeg"
    assert base64.b64decode(sent[2]["source"]["data"]) == (project / "photo.jpg").read_bytes()
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    assert [c["type"] for c in result["content"]] == ["text", "image"]
    assert result["content"][1]["source"]["media_type"] == "image/png"


def test_openai_gets_image_url_parts_and_tool_images_after_the_tool_message(
        server, provider_env, project):
    from support.sse_server import openai_chunk

    call = [openai_chunk({"choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": 0, "id": "call_img", "type": "function",
        "function": {"name": "read", "arguments": json.dumps({"path": "icon.webp"})}}]}}]}),
            openai_chunk({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            openai_chunk("[DONE]")]
    from support.sse_server import Reply

    server.openai(Reply(events=call), stream("openai_text"))
    files = attached("what is @diagram.gif", project, project)
    assert run_with(server, project, "openai:gpt-4.1", "what is @diagram.gif", files) == 0
    first, second = server.bodies()
    user = first["messages"][1]["content"]
    assert [p["type"] for p in user] == ["text", "text", "image_url"]
    assert user[2]["image_url"]["url"].startswith("data:image/gif;base64,")
    tool, pictures = second["messages"][-2:]
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_img"
    assert pictures["role"] == "user"
    assert pictures["content"][1]["image_url"]["url"].startswith("data:image/webp;base64,")


def test_the_session_log_keeps_images_as_files_and_restores_them(tmp_path):
    log_path = tmp_path / "sessions" / "s1.jsonl"
    log = SessionLog(log_path, lambda text: text.replace("hello", "[REDACTED]"))
    data = (IMAGES / "screenshot.png").read_bytes()
    block = ImageBlock("image/png", base64.b64encode(data).decode(), "shot.png", 120, 80)
    log.message(Message("user", [TextBlock("hello"), block]))
    log.message(Message("user", [ToolResultBlock("t1", "an image", images=(block,))]))
    log.close()
    line = log_path.read_text()
    assert block.data not in line and '"sha256"' in line      # bytes are not in the text log
    [stored] = list(images_dir(log_path).iterdir())
    assert stored.read_bytes() == data and stored.stat().st_mode & 0o777 == 0o600
    first, second = load(log_path).messages
    assert first.content[0] == TextBlock("[REDACTED]") and first.content[1] == block
    assert second.content[0].images == (block,)
    stored.unlink()      # gone: the resumed conversation says so instead of sending nothing
    first, second = load(log_path).messages
    assert isinstance(first.content[1], TextBlock) and "copy is gone" in first.content[1].text
    assert second.content[0].images == () and "copy is gone" in second.content[0].content


def test_edgar_p_refuses_a_binary_attachment_with_one_line(project, tmp_path):
    (project / "blob.bin").write_bytes(b"\x7fELF\x00\x00" * 50)
    script = write_script(tmp_path / "s.jsonl", [{"text": "never"}])
    done = run_edgar(["-p", "what is @blob.bin", "--model", f"scripted:{script}"], project,
                     edgar_env(tmp_path / "home"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "edgar: @blob.bin: a binary file (neither text nor a PNG, JPEG, GIF or WebP image); "
        "not attached"]


def test_edgar_p_sends_an_image_and_says_a_capped_file(project, tmp_path):
    (project / "big.log").write_text("y" * 79 + "\n" + ("z" * 79 + "\n") * 40_000)
    record = tmp_path / "req.jsonl"
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    done = run_edgar(["-p", "see @screenshot.png and @big.log", "--model", f"scripted:{script}"],
                     project, edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record)))
    assert done.returncode == 0, done.stderr
    assert "@big.log is 3,200,080 bytes: only its first 256 KB" in done.stderr
    content = recorded(record)[0]["messages"][0]["content"]
    assert [c["type"] for c in content] == ["text", "text", "image", "text"]
    assert len(json.dumps(recorded(record)[0])) < 400_000
