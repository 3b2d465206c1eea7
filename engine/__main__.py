"""``python -m engine analyse [--wild RANK | --round N] [--rules PRESET|JSON] [--json] CARD ...``

``python -m engine arena --players 4 --games N --seats hard,normal,easy,easy --seed S``: computer
players over the same deals, seats rotated; mean points per game with 95% confidence intervals.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from engine import arena
from engine.analysis import analyse, analysis_document, describe
from engine.bots import level_named
from engine.errors import EngineError
from engine.rules import Rules


def add_arena_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    arena = commands.add_parser("arena", help="computer players against each other")
    arena.add_argument("--players", type=int, default=4, help="seats at each table (default 4)")
    arena.add_argument(
        "--games", type=int, default=100, help="games in all, rounded up to whole rotations"
    )
    arena.add_argument(
        "--seats",
        default="hard,normal,easy,easy",
        help=(
            "one level per seat, comma-separated: easy, normal, hard, expert, greedy, or a"
            " variant of expert such as expert:later=0.6:others=1.3"
        ),
    )
    arena.add_argument("--seed", type=int, default=0, help="the first deal's seed")
    arena.add_argument(
        "--blocks",
        type=int,
        default=8,
        help="blocks of consecutive deals the margins' intervals compare (default 8)",
    )
    arena.add_argument(
        "--jobs", type=int, default=1, help="worker processes sharing the deals (default 1)"
    )
    arena.add_argument("--rules", default="classic", help="a preset or a JSON object")
    arena.add_argument(
        "--budget",
        type=int,
        default=None,
        help="hands a hard or expert decision may evaluate (default: each level's own)",
    )


def run_arena(args: argparse.Namespace) -> int:
    try:
        spec = json.loads(args.rules) if args.rules.lstrip().startswith("{") else args.rules
        rules = Rules.from_spec(spec)
        seats = [name.strip() for name in args.seats.split(",")]
        for name in seats:
            level_named(name)
        if len(seats) != args.players:
            print(f"error: {len(seats)} seats given for {args.players} players", file=sys.stderr)
            return 2
        rules.check_players(args.players)
    except (EngineError, json.JSONDecodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.blocks < 1:
        print(f"error: --blocks must be at least 1, not {args.blocks}", file=sys.stderr)
        return 2
    deals = arena.deals_for(args.games, seats, args.blocks)
    result = arena.run_split(
        seats, deals, args.seed, rules, jobs=args.jobs, budget=args.budget, blocks=args.blocks
    )
    print(result.table())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("analyse", help="the best melds, deadwood and ranked discards")
    command.add_argument("cards", nargs="+", help="card codes: 4H 10S qd 7★ JK ...")
    which = command.add_mutually_exclusive_group()
    which.add_argument("--wild", help="the wild rank (A 2-9 T J Q K); default: none")
    which.add_argument("--round", type=int, help="take the wild rank of this round instead")
    command.add_argument(
        "--rules",
        default="classic",
        help="a preset (classic, online, five-crowns) or a JSON object",
    )
    command.add_argument("--json", action="store_true", help="print the API's JSON shape")
    add_arena_command(commands)
    args = parser.parse_args(argv)
    if args.command == "arena":
        return run_arena(args)
    try:
        spec = json.loads(args.rules) if args.rules.lstrip().startswith("{") else args.rules
        rules = Rules.from_spec(spec)
        wild = args.wild if args.round is None else rules.wild_rank(args.round)
        result = analyse(args.cards, wild, rules)
    except (EngineError, json.JSONDecodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(analysis_document(result), ensure_ascii=False))
    else:
        print(describe(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
