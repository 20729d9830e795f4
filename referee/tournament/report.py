"""Showing ratings: a rich leaderboard, JSON and CSV rows, and one self-contained HTML report.

The HTML file has no scripts and loads nothing from the network: the rating plot is SVG drawn
here, the likelihood-of-superiority matrix is a table coloured inline, so the file can be
mailed, archived or opened offline and still look the same.
"""

from __future__ import annotations

import csv
import html
import io
import math
from collections.abc import Sequence
from typing import Any

from rich.table import Table

from referee.tournament.config import TournamentConfig
from referee.tournament.ratings import BotRating, Ratings

ROW_FIELDS = (
    "rank", "bot", "rating", "lower", "upper", "matches", "wins", "win_share", "win_share_se",
    "mean_place", "mean_score", "mean_score_se", "failures",
)
"""The columns of :func:`rows` (and of the CSV file), in order."""


def rows(ratings: Ratings) -> list[dict[str, Any]]:
    """One flat JSON-ready object per bot, best first (``talon ratings --json``)."""
    out = []
    for rank, bot in enumerate(ratings.bots, start=1):
        row: dict[str, Any] = {"rank": rank}
        for field in ROW_FIELDS[1:]:
            value = getattr(bot, field)
            row[field] = None if isinstance(value, float) and math.isnan(value) else value
        row["seats"] = [s.to_json() for s in bot.seats]
        out.append(row)
    return out


def csv_text(ratings: Ratings) -> str:
    """The leaderboard as CSV (per-seat details are left to the JSON)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ROW_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows(ratings):
        writer.writerow(row)
    return buffer.getvalue()


def leaderboard(ratings: Ratings, title: str = "Ratings") -> Table:
    """The leaderboard as a rich table."""
    pct = round(100 * ratings.confidence)
    table = Table(title=title, caption=_caption(ratings))
    for name, justify in [
        ("#", "right"), ("bot", "left"), ("rating", "right"), (f"{pct}% CI", "right"),
        ("matches", "right"), ("win share", "right"), ("mean score", "right"), ("failures", "right"),
    ]:
        width = max([len(b.bot) for b in ratings.bots] + [3]) if name == "bot" else None
        table.add_column(name, justify=justify, min_width=min(width, 24) if width else None)  # type: ignore[arg-type]
    for rank, bot in enumerate(ratings.bots, start=1):
        table.add_row(
            str(rank), bot.bot, f"{bot.rating:.0f}", f"[{bot.lower:.0f}, {bot.upper:.0f}]",
            str(bot.matches), _share(bot), f"{bot.mean_score:.2f}",
            f"[red]{bot.failures}[/red]" if bot.failures else "0",
        )
    return table


def _share(bot: BotRating) -> str:
    se = "" if math.isnan(bot.win_share_se) else f" ± {100 * bot.win_share_se:.1f}"
    return f"{100 * bot.win_share:.1f}%{se}"


def _caption(ratings: Ratings) -> str:
    text = (
        f"{ratings.matches} matches in {ratings.groups} deal groups; Plackett–Luce, "
        f"{ratings.samples} deal-group bootstrap resamples"
    )
    if not ratings.connected:
        text += "; WARNING: the field is not connected, ratings of separate parts are not comparable"
    return text


# --- HTML --------------------------------------------------------------------------------------

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin:1rem 0}
th,td{padding:.3rem .6rem;border:1px solid #ddd;text-align:right}
th{background:#f4f4f4}td.bot,th.bot{text-align:left}
caption{caption-side:bottom;font-size:.85rem;color:#666;padding-top:.4rem}
.note{color:#666;font-size:.9rem;max-width:52rem}
"""


def html_report(ratings: Ratings, config: TournamentConfig | None = None) -> str:
    """The whole report as one HTML document."""
    title = "Talon tournament"
    if config is not None:
        title += f": {config.game} ({config.rules}), {config.table_size} players per table"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="note">{html.escape(_caption(ratings))}. Ratings are on an Elo-like scale '
        "(400/ln 10 points per unit of log-strength; 100 points is a 64% head-to-head win rate). "
        "Intervals are percentiles of the bootstrap.</p>",
        _config_html(config) if config is not None else "",
        "<h2>Leaderboard</h2>",
        _leaderboard_html(ratings),
        "<h2>Ratings with intervals</h2>",
        rating_plot_svg(ratings),
        "<h2>Likelihood of superiority</h2>",
        '<p class="note">Share of bootstrap resamples in which the row bot is rated above the '
        "column bot: the chance that it is truly stronger, not that it wins the next game.</p>",
        _los_html(ratings),
        "<h2>Seat bias</h2>",
        _seats_html(ratings),
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p)


def _config_html(config: TournamentConfig) -> str:
    items = [
        ("bots", ", ".join(config.bots)), ("mode", config.mode), ("seed", str(config.seed)),
        ("deal key", config.deal_key or "none: deals follow from the seed alone"),
        ("deal groups per table", str(config.deal_groups)), ("sandbox", config.sandbox),
    ]
    if config.challenger:
        items.append(("challenger", config.challenger))
    cells = "".join(f'<tr><th class="bot">{html.escape(k)}</th><td class="bot">{html.escape(v)}</td></tr>' for k, v in items)
    return f"<table>{cells}</table>"


def _leaderboard_html(ratings: Ratings) -> str:
    pct = round(100 * ratings.confidence)
    head = (
        f'<tr><th>#</th><th class="bot">bot</th><th>rating</th><th>{pct}% interval</th><th>matches</th>'
        "<th>win share</th><th>mean place</th><th>mean score</th><th>failures</th></tr>"
    )
    body = "".join(
        f'<tr><td>{rank}</td><td class="bot">{html.escape(b.bot)}</td><td>{b.rating:.0f}</td>'
        f"<td>[{b.lower:.0f}, {b.upper:.0f}]</td><td>{b.matches}</td><td>{html.escape(_share(b))}</td>"
        f"<td>{b.mean_place:.2f}</td><td>{b.mean_score:.2f}</td><td>{b.failures}</td></tr>"
        for rank, b in enumerate(ratings.bots, start=1)
    )
    return f"<table>{head}{body}</table>"


def los_colour(value: float) -> str:
    """Red (0) through white (0.5) to green (1): how sure a row bot is above a column bot."""
    value = min(1.0, max(0.0, value))
    if value >= 0.5:
        t = (value - 0.5) * 2
        r, g, b = (255 - 155 * t, 255 - 55 * t, 255 - 155 * t)
    else:
        t = (0.5 - value) * 2
        r, g, b = (255 - 15 * t, 255 - 155 * t, 255 - 155 * t)
    return f"#{round(r):02x}{round(g):02x}{round(b):02x}"


def _los_html(ratings: Ratings) -> str:
    names = ratings.names()
    head = '<tr><th class="bot"></th>' + "".join(f"<th>{html.escape(n)}</th>" for n in names) + "</tr>"
    body = ""
    for i, name in enumerate(names):
        cells = "".join(
            "<td>–</td>" if i == j else f'<td style="background:{los_colour(v)}">{v:.2f}</td>'
            for j, v in enumerate(ratings.los[i])
        )
        body += f'<tr><th class="bot">{html.escape(name)}</th>{cells}</tr>'
    return f"<table>{head}{body}</table>"


def _seats_html(ratings: Ratings) -> str:
    head = "<tr><th>seat</th><th>matches</th><th>win share</th><th>mean place</th><th>mean score</th></tr>"
    body = "".join(
        f"<tr><td>{s.seat}</td><td>{s.matches}</td><td>{100 * s.win_share:.1f}%</td>"
        f"<td>{s.mean_place:.2f}</td><td>{s.mean_score:.2f}</td></tr>"
        for s in ratings.seat_bias
    )
    return f"<table>{head}{body}</table>"


def rating_plot_svg(ratings: Ratings, width: int = 720) -> str:
    """Each bot's rating as a dot with its interval as a bar, best at the top, as inline SVG."""
    bots: Sequence[BotRating] = ratings.bots
    row, left, right, top = 28, 160, 30, 30
    height = top + row * len(bots) + 30
    low = min(b.lower for b in bots)
    high = max(b.upper for b in bots)
    pad = max(10.0, (high - low) * 0.05)
    low, high = low - pad, high + pad

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * (width - left - right)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="ratings with intervals" '
        'font-family="system-ui,sans-serif" font-size="12">'
    ]
    for tick in _ticks(low, high):
        out.append(
            f'<line x1="{x(tick):.1f}" y1="{top - 10}" x2="{x(tick):.1f}" y2="{height - 25}" stroke="#eee"/>'
            f'<text x="{x(tick):.1f}" y="{height - 10}" text-anchor="middle" fill="#666">{tick:.0f}</text>'
        )
    for i, bot in enumerate(bots):
        y = top + row * i + row / 2
        out.append(
            f'<text x="{left - 10}" y="{y + 4:.1f}" text-anchor="end">{html.escape(bot.bot)}</text>'
            f'<line x1="{x(bot.lower):.1f}" y1="{y:.1f}" x2="{x(bot.upper):.1f}" y2="{y:.1f}" '
            'stroke="#4a7bb7" stroke-width="3"/>'
            f'<circle cx="{x(bot.rating):.1f}" cy="{y:.1f}" r="5" fill="#1f3d66">'
            f"<title>{html.escape(bot.bot)}: {bot.rating:.0f} [{bot.lower:.0f}, {bot.upper:.0f}]</title></circle>"
        )
    out.append("</svg>")
    return "".join(out)


def _ticks(low: float, high: float) -> list[float]:
    """Round tick values covering ``[low, high]``, about six of them."""
    raw = (high - low) / 6
    magnitude = 10 ** math.floor(math.log10(raw))
    step = min((m * magnitude for m in (1, 2, 5, 10)), key=lambda s: abs(s - raw))
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]
