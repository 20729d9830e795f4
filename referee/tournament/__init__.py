"""Tournaments: round robins of deal groups, honest ratings, results that survive a crash.

The pure parts (no referee needed): :mod:`.config` (what to play), :mod:`.schedule` (tables,
deal groups, seeds), :mod:`.plackett_luce` and :mod:`.ratings` (the batch fit, its bootstrap,
the side tables), :mod:`.store` (SQLite, one transaction per deal group) and :mod:`.report`
(terminal, JSON, CSV, HTML).
"""
