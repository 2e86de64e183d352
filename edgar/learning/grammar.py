"""The small grammar ``extract()`` reads a typed line with (docs/learning.md, ADR-0021).

Guarantees: only data and pure regular expressions (each compiled on first use); no I/O, no
state beyond that. Each word list is a closed class of English (courtesies, modal lead-ins,
adverbs, determiners, irregular past forms), never lines copied from a test set: a rule is
recognised by its shape.
"""

from __future__ import annotations

import re

_PATTERNS: dict[str, tuple[str, int]] = {}


def _lazy(name: str, pattern: str, flags: int = 0) -> None:
    """Pattern ``name`` of this module, compiled on first use (``__getattr__``): compiling all
    of them at import cost every start ~7 ms (issue 26 item 1)."""
    _PATTERNS[name] = (pattern, flags)


def __getattr__(name: str) -> re.Pattern[str]:
    try:
        source = _PATTERNS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    compiled = globals()[name] = re.compile(*source)
    return compiled

# Words a person puts in front of a rule without changing it: courtesy, acknowledgement,
# transition and time ("from now on"). Matched whole, any case, in any sequence, each followed
# by a space or a short punctuation mark ("thanks!", "ok now,", "also:").
_LEAD_WORDS = (
    r"please|pls|plz|kindly|ok|okay|k|alright|all\s+right|right|great|cool|nice|perfect|good|"
    r"awesome|excellent|thanks|thank\s+you|thx|ty|cheers|yes|yeah|yep|yup|sure|fine|got\s+it|"
    r"understood|hey|hi|hello|so|and|also|oh|well|btw|by\s+the\s+way|fyi|note|important|"
    r"one\s+more\s+thing|just|plus|now|then|again|"
    r"from\s+now\s+on|going\s+forward|moving\s+forward|in\s+the\s+future|henceforth|"
    r"for\s+future\s+reference|in\s+general|as\s+a\s+rule|generally|"
    r"(?:for|in)\s+(?:this|the)\s+(?:project|repo|repository|codebase|code\s*base)|here|"
    r"for\s+the\s+rest\s+of\s+(?:this|the)\s+session|"
    # a modal lead-in addressed to the agent: "you should always", "make sure to never"
    r"you\s+(?:should|must|need\s+to|have\s+to|will|shall)|"
    r"i(?:\s+want|\s+need|\s+would\s+like|'d\s+like|’d\s+like)\s+you\s+to|"
    r"make\s+sure\s+(?:to|that\s+you|you)|be\s+sure\s+to|remember\s+to|"
    r"(?:the\s+)?rule(?:\s+is)?|reminder"
)
_lazy("LEAD", rf"(?:(?:{_LEAD_WORDS})(?:\s*[,:!.;\-–—]+\s*|\s+))*", re.IGNORECASE)

# "don't ever", "do not ever", "dont ever": a "never" (the fact says "never").
_lazy("DONT_EVER", r"(?:don'?t|don’t|do\s+not)\s+ever\b", re.IGNORECASE)

# Things that start with a directive word but state no rule.
_lazy("IDIOM",
    r"(?:never\s+(?:mind|fear|again|say\s+never|ever\s+again|gonna|too\s+late|better)"
    r"|always\s+(?:a\s+pleasure|happy\s+to|good\s+to|nice\s+to|fun)"
    r"|remember\s+that\s+(?:one|time|thing|day|guy|night|other)\b)",
    re.IGNORECASE)

# Adverbs between the directive and its verb: skipped when deciding what follows.
ADVERBS = frozenset("""
just also please ever first explicitly carefully only properly directly manually really
actually even still immediately strictly consistently once yet
""".split())

# What follows "always"/"never" in a description of behaviour rather than a rule: a
# determiner or pronoun ("always the same error"), a state ("always empty"), a conjunction
# ("always when I run make"), a form of be/have/do that is not the base form, a modal.
DESCRIBING = frozenset("""
the a an this that these those it its it's my your our their his her him them me us
someone something anything nothing everything anyone everyone nobody somebody there here
so too very quite that's what how why who where which whenever when if because since
is are was were been being am has had having does did done doing goes went gone gets got
gotten can could would should will shall may might must need needs
true false null none empty zero undefined nil broken slow fast same different wrong right
fine ok okay good bad late early on off up down failing flaky red green random
before enough again ago worse better more less much many
seen heard knew known thought found saw came come taken took gave given understood felt
kept left ran wrote written broke made said told meant began begun
""".split())

# Base forms that look like a past tense (-ed), a gerund (-ing) or a third person (-s).
BASE_ED = frozenset("embed shed bed wed shred sled seed feed need heed weed bleed breed "
                    "proceed exceed succeed speed".split())
BASE_ING = frozenset("bring ping sing ring string swing spring cling fling sting ding wring "
                     "king".split())
BASE_S = frozenset("pass press access discuss process focus bypass dismiss address express "
                   "compress toss miss cross alias bias canvas gas".split())

# A '.' that ends one of these is no sentence end ("e.g. ruff").
ABBREVIATIONS = frozenset("e.g eg i.e ie etc vs cf approx incl esp resp al mr mrs ms dr no "
                          "nr fig ca min max".split())

# Courtesy said after the rule, in the same sentence: ", thanks", " please", " pls".
_lazy("TRAILING_COURTESY",
    r"(?:\s*[,;:\-–—]?\s+(?:please|pls|plz|thanks|thank\s+you|thx|ty|cheers)"
    r"[\s.!,]*)$", re.IGNORECASE)

# "remember that <noun> we/you/from/yesterday …": a reference to an event, not a rule.
_lazy("REMEMBER_REFERENCE",
    r"remember\s+that\s+\S+\s+(?:we|you|i|they|from|yesterday|last|earlier|when|which|"
    r"the\s+other|this\s+morning|before)\b", re.IGNORECASE)

_lazy("WORD", r"[A-Za-z][A-Za-z'’-]*")


def describes(word: str) -> bool:
    """True when ``word`` after "always"/"never" makes a description, not an imperative."""
    w = word.lower().rstrip("'’")
    if w in DESCRIBING:
        return True
    if w.endswith("ing") and len(w) > 4 and w not in BASE_ING:
        return True
    if w.endswith("ed") and not w.endswith("eed") and len(w) > 3 and w not in BASE_ED:
        return True
    if (w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3
            and w not in BASE_S):
        return True
    return w.endswith(("n't", "n’t"))


# --- whole messages (issue 22; learning/hearing.py) ---

# A clause about a time, not a standing rule: "until Friday", "tomorrow", "this week",
# "for now", "on 10 September", "at 3pm". (A plural weekday, "on Fridays", is a habit.)
_MONTHS = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
_DAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_lazy("TIME_BOUND",
    rf"\b(?:until|till|til|by)\s+(?:{_DAYS}|tomorrow|tonight|next|the\s+end|the\s+\w+\s+is|"
    rf"\d|{_MONTHS}|(?:the\s+)?(?:migration|release|launch|deadline|demo)\b)"
    rf"|\buntil\b|\b(?:today|tonight|tomorrow|yesterday)\b"
    rf"|\b(?:this|next)\s+(?:week|weekend|morning|afternoon|evening|sprint|month|release)\b"
    rf"|\bfor\s+(?:now|the\s+time\s+being|the\s+next\s+\w+|today|this\s+week)\b"
    rf"|\bon\s+(?:{_DAYS})\b(?!s)|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|\b(?:{_MONTHS})\s+\d{{1,2}}\b|\bat\s+\d{{1,2}}(?::\d\d)?\s*(?:am|pm)\b"
    rf"|\b(?:a|my|the)\s+(?:meeting|call|appointment|demo)\b",
    re.IGNORECASE)

_lazy("REMEMBER", r"remember\b", re.IGNORECASE)

# Courtesy before an instruction that is not in the directive form ("please use uv …").
_lazy("COURTESY", r"^(?:(?:please|pls|plz|kindly|ok(?:ay)?|so|also|and|then|now)"
                      r"(?:\s*[,:!.;\-–—]+\s*|\s+))+", re.IGNORECASE)

# "from now on", "going forward" in front of or after an instruction: it is meant to stand.
_STANDING = (r"from\s+now\s+on|going\s+forward|moving\s+forward|henceforth|in\s+(?:the\s+)?future|"
             r"from\s+here\s+on(?:\s+out)?|for\s+the\s+rest\s+of\s+(?:this|the)\s+(?:session|project)")
_lazy("STANDING_LEAD", rf"^(?:{_STANDING})(?:\s*[,:!.;\-–—]+\s*|\s+)", re.IGNORECASE)
_lazy("STANDING_TRAIL", rf"(?:\s*,)?\s+(?:{_STANDING})\s*[.!]*$", re.IGNORECASE)

# An instruction: starts with a verb in the base form ("use", "write", "just fix"), not a
# pronoun, a determiner or a description ("you can see …", "the logs are …").
_lazy("IMPERATIVE",
    r"(?:just\s+|only\s+|always\s+)?(?!(?:you|we|i|it|they|he|she|this|that|there|the|a|an|my|"
    r"our|your|its|is|are|was|were|can|could|would|will|should)\b)"
    r"(?:use|write|run|keep|put|add|make|call|name|prefer|avoid|stop|start|fix|do|don't|do\s+not|"
    r"format|commit|push|test|check|ask|reply|respond|answer|answer|work|stay|follow|treat|"
    r"leave|let|skip|send|show|print|log|store|save|read|place|prefix|indent|sort|import|"
    r"install|build|deploy|document|mention|explain|include|exclude|quote|branch|merge|"
    r"rebase|squash|tag|pin|lint|type|return|raise|throw|handle|catch|wrap|split|group)\b",
    re.IGNORECASE)

# The standing forms of issue 22, at the start of a clause (after courtesy).
_lazy("IMPLICIT",
    r"(?:stop\s+(?:using|adding|writing|running|doing|making|creating|calling|putting|"
    r"\w+ing\b)\s+[\w`\"'“(]"
    r"|use\s+\S.{0,80}?\s+(?:instead\s+of|rather\s+than|over)\s+\S"
    r"|use\s+[^,]{1,60},\s+not\s+\S"
    r"|prefer\s+\S"
    r"|(?:don'?t|don’t|do\s+not)\s+.{3,200}?\b(?:anymore|any\s+more|ever\s+again)\b"
    r"|(?:i|we)(?:\s+would|'d|’d)?\s+(?:really\s+)?prefer\s+\S"
    r"|(?:i|we)\s+(?:always\s+)?(?:like|want)\s+(?:you\s+to\s+)?(?:always|never)\s+\S"
    r"|we\s+(?:should|must|need\s+to|have\s+to)\s+(?:always|never)\s+\S"
    r"|.{2,60},\s+prefer\s+\S)",
    re.IGNORECASE)

# "I prefer the second option", "I prefer not to say": a choice or a refusal, not a rule.
_lazy("NOT_A_PREFERENCE",
    r"(?:i|we)(?:\s+would|'d|’d)?\s+prefer\s+(?:the|this|that|these|those|it|option|one|"
    r"not\s+to|to\s+(?:wait|stop|think|leave\s+it|keep\s+it\s+as))\b",
    re.IGNORECASE)
