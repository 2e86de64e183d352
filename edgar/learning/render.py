"""How ``edgar stats`` reads: a table whose rows are also sentences.

Guarantee: pure formatting of ``Stats`` values; ``stats_json`` is the stable, machine
-readable form (every number raw, ``null`` when unknown).
"""

from __future__ import annotations

VERBS = {"shape": "are {}", "model": "used {}", "day": "were on {}", "outcome": "ended {}"}


def seconds(value: float | None) -> str:
    if value is None:
        return "—"   # no duration known (imported runs whose transcript gives no times)
    if value < 60:
        return f"{value:.1f} s"
    if value < 3600:
        return f"{value / 60:.1f} min"
    return f"{value / 3600:.1f} h"


def tokens(value: int) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.1f}k"
    return str(value)


def money(value: float | None) -> str:
    if value is None:
        return "—"
    return f"${value:.4f}" if 0 < value < 0.01 else f"${value:.2f}"


def percent(value: float) -> str:
    return f"{round(value * 100)} %"


def sentence(group, by: str) -> str:
    """"61 % of runs here are read+edit, median 8.2 s, $0.04 each"."""
    each = group.cost_each
    cost = f"{money(each)} each" if each is not None else "cost unknown"
    what = VERBS[by].format(group.key or "unknown")
    text = f"{percent(group.share)} of runs here {what}, median {seconds(group.median)}, {cost}"
    if group.verify_runs:
        text += f"; verify passed in {percent(group.verify_rate)} of {group.verify_runs}"
    return text


def headline(total) -> str:
    verify = (f"verify ran in {total.verify_runs}, {percent(total.verify_rate)} passed"
              if total.verify_runs else "verify never ran")
    cost = ("cost unknown" if not total.cost_runs else
            money(total.cost) + (" (some costs unknown)" if total.cost_runs < total.runs else ""))
    untimed = total.runs - total.timed
    timing = f" ({untimed} without a duration)" if untimed and total.timed else ""
    return (f"{total.runs} run{'s' * (total.runs != 1)}, {seconds(_known(total))} in all, median "
            f"{seconds(total.median)}{timing}, {tokens(total.tokens)} tokens, {cost}; {verify}")


def _known(group) -> float | None:
    """The summed duration, or None when no run of the group has one."""
    return group.duration if group.timed else None


def _row(group) -> list[str]:
    verify = f"{group.verify_passed}/{group.verify_runs}" if group.verify_runs else "—"
    return [group.key or "unknown", str(group.runs), percent(group.share),
            seconds(group.median), seconds(_known(group)), tokens(group.tokens),
            money(group.cost if group.cost_runs else None), money(group.cost_each), verify]


HEADERS = ["runs", "share", "median", "total", "tokens", "cost", "each", "verify"]


def _scope(since: str | None, source: str) -> str:
    return ("since " + since if since else "all time") + f", source {source}"


def stats_text(groups, total, by: str, since: str | None, source: str) -> str:
    if total is None or not total.runs:
        return f"no runs recorded yet ({_scope(since, source)})\n"
    rows = [[by, *HEADERS]] + [_row(g) for g in groups]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [f"edgar stats by {by}, {_scope(since, source)}: {headline(total)}", ""]
    for row in rows:
        counts = [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        cells = [row[0].ljust(widths[0])] + counts
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines.extend(sentence(g, by) + "." for g in groups)
    return "\n".join(lines) + "\n"


def stats_rich(groups, total, by: str, since: str | None, source: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if total is None or not total.runs:
        console.print(f"no runs recorded yet ({_scope(since, source)})")
        return
    table = Table(title=f"edgar stats by {by}, {_scope(since, source)}",
                  caption=headline(total))
    table.add_column(by)
    for name in HEADERS:
        table.add_column(name, justify="right")
    for group in groups:
        table.add_row(*_row(group))
    console.print(table)
    for group in groups:
        console.print(sentence(group, by) + ".", highlight=False)


def _group_json(group) -> dict:
    return {
        "key": group.key, "runs": group.runs, "share": group.share,
        "duration_total": _known(group), "duration_median": group.median,
        "timed_runs": group.timed,
        "input_tokens": group.input_tokens, "output_tokens": group.output_tokens,
        "cache_tokens": group.cache_tokens, "tokens": group.tokens,
        "cost": group.cost if group.cost_runs else None, "cost_runs": group.cost_runs,
        "cost_each": group.cost_each, "verify_runs": group.verify_runs,
        "verify_passed": group.verify_passed, "verify_pass_rate": group.verify_rate,
    }


def stats_json(groups, total, by: str, since: str | None, source: str) -> dict:
    return {"by": by, "since": since, "source": source,
            "total": _group_json(total) if total is not None and total.runs else None,
            "groups": [_group_json(g) | {"sentence": sentence(g, by)} for g in groups]}


__all__ = ["stats_json", "stats_text", "stats_rich", "sentence", "headline"]
