"""Geometry for the reports' inline SVG charts (templates/surveys/reports/_bars.html and
_columns.html draw it). No chart library and no script: the server works out every bar.

Lengths along the value axis are percentages of the chart's width, so a chart keeps its text
at the page's size on a 390 px phone and on a desktop alike (a viewBox would shrink the text
with the drawing). A suppressed count gets no bar at all: only a fixed, dashed marker with its
"< 5" text, whose size says nothing about the count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

# Horizontal bars: the label on one line, the bar under it.
ROW_HEIGHT = 46
LABEL_Y = 16  # baseline of the label within its row
BAR_Y = 23
BAR_HEIGHT = 16
# The bars use this share of the width; the rest leaves room for the number after the
# longest one.
BAR_SPAN = 80.0
# Longest label drawn (SVG text does not wrap); the full label is in the <title> and the table.
LABEL_CHARS = 48


@dataclass
class Bar:
    label: str
    full_label: str
    display: str
    y: int
    label_y: int
    bar_y: int
    text_y: int
    width: float  # percent of the chart's width; 0 for a suppressed count
    suppressed: bool
    value_x: float  # percent: where the number starts
    lang: str = ""  # the label's language, when it is not the page's


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1].rstrip() + "…"


def hbars(rows: list[tuple]) -> dict:
    """rows: (label, count or None when suppressed, the text to show[, the label's language]).
    The longest shown count spans BAR_SPAN percent of the width."""
    top = max((row[1] for row in rows if row[1]), default=0)
    bars = []
    for index, (label, value, display, *lang) in enumerate(rows):
        y = index * ROW_HEIGHT
        suppressed = value is None
        width = 0.0 if suppressed or not top else round(BAR_SPAN * value / top, 2)
        bars.append(
            Bar(
                label=_short(label),
                full_label=label,
                display=display,
                y=y,
                label_y=y + LABEL_Y,
                bar_y=y + BAR_Y,
                text_y=y + BAR_Y + BAR_HEIGHT - 3,
                width=width,
                suppressed=suppressed,
                value_x=width,
                lang=lang[0] if lang else "",
            )
        )
    return {"bars": bars, "height": len(rows) * ROW_HEIGHT + 4, "bar_height": BAR_HEIGHT}


@dataclass
class Column:
    """Attributes ready to print (a two-month survey draws 60 of these: formatting them here,
    not with template filters, keeps the page fast)."""

    day: date
    title: str
    x: str  # percent
    width: str  # percent
    answers_y: str
    answers_height: str
    new_y: str
    new_height: str


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def columns(days: list, *, plot_height: int = 150, top_margin: int = 22) -> dict:
    """One column a day (DayRow: day, answers, new_respondents): answers, and inside it the
    respondents who answered for the first time that day (never more than the answers)."""
    n = len(days)
    top = max((d.answers for d in days), default=0)
    step = 100.0 / n if n else 100.0
    gap = min(step * 0.2, 0.6)
    base = top_margin + plot_height
    result = []
    for index, d in enumerate(days):
        a = plot_height * d.answers / top if top else 0
        r = plot_height * d.new_respondents / top if top else 0
        result.append(
            Column(
                day=d.day,
                title=(
                    f"{d.day:%Y-%m-%d}: {_plural(d.answers, 'answer')}, "
                    f"{_plural(d.new_respondents, 'new respondent')}"
                ),
                x=f"{index * step + gap / 2:.3f}",
                width=f"{step - gap:.3f}",
                answers_y=f"{base - a:.1f}",
                answers_height=f"{a:.1f}",
                new_y=f"{base - r:.1f}",
                new_height=f"{r:.1f}",
            )
        )
    return {
        "columns": result,
        "top": top,
        "top_y": top_margin,
        "base_y": base,
        "height": base + 24,
        "date_y": base + 17,
        "first": days[0].day if days else None,
        "last": days[-1].day if days else None,
    }
