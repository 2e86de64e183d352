"""Header filling of Claude Code's HTTP hooks (``hooks/http.fill``): a variable reaches a
header only when ``allowedEnvVars`` lists it; text that refers to none is unchanged."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from edgar.hooks.http import fill, references

names = st.sampled_from(["TOKEN", "SECRET", "A_1", "HOME"])
values = st.text(alphabet="xyz-+ ", max_size=6)
plain = st.text(alphabet=" ()=:/-.", max_size=12)   # nothing that would extend a name
pieces = st.lists(st.one_of(plain, names.map(lambda n: "$" + n),
                            names.map(lambda n: "${" + n + "}")), max_size=6)
environs = st.dictionaries(names, values)
alloweds = st.lists(names, max_size=4).map(tuple)


@given(pieces, alloweds, environs)
def test_only_allowed_variables_are_filled_in(parts, allowed, environ):
    text = "".join(parts)
    assert fill(text, allowed, environ) == "".join(expand(p, allowed, environ) for p in parts)
    assert references(text) == [p.strip("${}") for p in parts if p.startswith("$")]


def expand(part: str, allowed: tuple[str, ...], environ: dict[str, str]) -> str:
    """One piece as Claude Code fills it, written without the regex."""
    if not part.startswith("$"):
        return part
    name = part.strip("${}")
    return environ.get(name, "") if name in allowed else ""


@given(st.text(max_size=20).filter(lambda t: "$" not in t))
def test_text_without_references_is_unchanged(text):
    assert fill(text, ("TOKEN",), {"TOKEN": "t"}) == text and references(text) == []
