"""The ``talon`` command: one click group; each area adds its commands from its own module."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="talon")
def main() -> None:
    """Talon: bots play card games against each other, refereed, sandboxed and rated."""
    _raise_open_files_limit()


def _raise_open_files_limit() -> None:
    """Let the referee hold as many sockets as the system allows (soft limit up to the hard
    one): every bot's connection is a file descriptor of this process, and the usual soft
    limit of 1,024 is a few hundred bots away."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass  # an unlimited hard limit the kernel will not grant: keep the soft one


@main.group()
def bench() -> None:
    """Benchmarks that print one JSON object (see docs/performance.md)."""


def _register() -> None:
    """Attach the commands of each area (imported here, so `talon --help` stays complete)."""
    from referee.cli_rules import bench_engine, rules

    main.add_command(rules)
    bench.add_command(bench_engine)
    from referee.cli_bot import bot

    main.add_command(bot)
    from referee.cli_play import bench_referee, play, replay

    main.add_command(play)
    main.add_command(replay)
    bench.add_command(bench_referee)
    from referee.cli_tournament import ratings, report, tournament

    main.add_command(tournament)
    main.add_command(ratings)
    main.add_command(report)
    from referee.cli_serve import serve

    main.add_command(serve)
    from referee.cli_match import match

    main.add_command(match)


_register()
