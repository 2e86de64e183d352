"""Properties of the HTTP providers' per-read merge (``providers/http.py``): joining runs of
text (and of unsigned thinking) changes nothing a reader of the stream can see."""

from __future__ import annotations

from itertools import groupby, pairwise

from hypothesis import given
from hypothesis import strategies as st

from edgar.providers.base import RedactedThinking, TextChunk, ThinkingChunk, ToolCall
from edgar.providers.http import _merged

texts = st.text(alphabet=st.sampled_from("ab \n."), max_size=4)
events = st.one_of(
    st.builds(TextChunk, texts),
    st.builds(ThinkingChunk, texts),
    st.builds(ThinkingChunk, texts, st.text(alphabet="SIG", min_size=1, max_size=3)),
    st.builds(RedactedThinking, st.text(alphabet="xyz", min_size=1, max_size=3)),
    st.builds(ToolCall, st.text(alphabet="t01", min_size=1, max_size=2), st.just("read"),
              st.just({"path": "a"})),
)


def _joinable(event: object) -> type | None:
    if type(event) is TextChunk or (isinstance(event, ThinkingChunk) and not event.signature):
        return type(event)
    return None


def _reference(stream: list) -> list:
    """The same merge, said the obvious way: consecutive joinable events of one type."""
    out: list = []
    for kind, group in groupby(stream, key=lambda e: _joinable(e) or id(e)):
        items = list(group)
        out.append(kind(text="".join(e.text for e in items)) if isinstance(kind, type)
                   else items[0])
    return out


@given(st.lists(events, max_size=30))
def test_merge_joins_exactly_the_runs_of_one_joinable_type(stream):
    merged = _merged(stream)
    assert merged == _reference(stream)
    # nothing a reader sees changes: all text of each kind, every other event, in order
    for kind in (TextChunk, ThinkingChunk):
        assert ("".join(e.text for e in merged if type(e) is kind)
                == "".join(e.text for e in stream if type(e) is kind))
    assert ([e for e in merged if _joinable(e) is None]
            == [e for e in stream if _joinable(e) is None])
    assert all(not (_joinable(a) and _joinable(a) is _joinable(b)) for a, b in pairwise(merged))
