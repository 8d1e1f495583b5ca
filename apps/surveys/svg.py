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
    day: date
    answers: int
    new_respondents: int
    x: float  # percent
    width: float  # percent
    answers_y: float
    answers_height: float
    new_y: float
    new_height: float


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
                answers=d.answers,
                new_respondents=d.new_respondents,
                x=round(index * step + gap / 2, 3),
                width=round(step - gap, 3),
                answers_y=round(base - a, 1),
                answers_height=round(a, 1),
                new_y=round(base - r, 1),
                new_height=round(r, 1),
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
