"""The pure parts of the model-written commit message (ADR-0111): what is sent is bounded,
and whatever the model answers, a parsed message is one clean subject line and a short body
that composes into a message whose trailers are edgar's own."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from edgar.core import commit_message as msg
from edgar.core import commit_writer as cw

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=400)
LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=90)


@given(TEXT)
def test_whatever_the_model_answers_a_parsed_message_is_a_subject_and_a_short_body(answer):
    written = cw.parse(answer)
    if written is None:
        return
    assert written.subject and "\n" not in written.subject
    assert len(written.subject) <= msg.SUBJECT_MAX
    assert written.subject == msg.one_line(written.subject)
    assert len(written.body) <= cw.BODY_MAX + 2
    assert len(written.body.splitlines()) <= cw.BODY_LINES
    assert not any(line.lower().startswith("edgar-") for line in written.body.splitlines())


@given(TEXT, st.text(min_size=1, max_size=12, alphabet="abcdef0123456789"),
       st.text(min_size=1, max_size=12, alphabet="abcdef0123456789"))
def test_a_parsed_message_never_forges_or_hides_edgars_trailers(answer, session, turn):
    written = cw.parse(answer)
    if written is None:
        return
    text = msg.compose(written.subject, {"a.txt": "M"}, session=session, turn=turn,
                       model="m", body=written.body)
    assert msg.trailers(text) == {msg.SESSION_KEY: session, msg.TURN_KEY: turn,
                                  "Edgar-Model": "m"}
    assert text.splitlines()[0] == written.subject


PLAIN = st.text(alphabet=string.ascii_letters + string.digits + " .,()-+@", max_size=90)
SPECIAL = ("subject", "title", "commit message", "signed-off-by", "co-authored-by", "edgar-",
           "diff --git", "--- ", "+++ ", "@@ ")


@given(PLAIN.filter(lambda s: msg.one_line(s)
                    and not msg.one_line(s).lower().startswith(SPECIAL)),
       st.lists(LINE, max_size=4))
def test_a_plain_subject_and_body_come_back_as_they_were(subject, body):
    written = cw.parse(subject + "\n\n" + "\n".join(body))
    assert written is not None
    assert written.subject == msg.clip(msg.one_line(subject))


@given(st.text(max_size=60_000, alphabet="ab\n+- "), st.integers(100, 30_000))
def test_the_diff_sent_is_bounded_and_says_what_was_cut(diff, limit):
    sent = cw.clip_diff(diff, limit)
    if len(diff) <= limit:
        assert sent == diff
    else:
        assert len(sent) <= limit + 80
        assert sent.endswith("more characters of the diff not shown)\n")
        assert diff.startswith(sent.rsplit("\n…", 1)[0])
