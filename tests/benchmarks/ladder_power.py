"""What a ladder of rated games can show: how often ``--games`` rated two-seat games among four
levels part every adjacent pair's 95% intervals (``mu`` ± 1.96 ``sigma``), under the service's own
rating model (``service.ratings.model``: openskill's Plackett-Luce, its defaults), when each level
beats the one below it with probability ``p`` (and a level two or three steps up by the same odds
ratio compounded: logistic strength).

Each simulated ladder pairs two different levels at random each game, as the bot ladder does
(docs/ratings.md), and rates the winner first. No server and no game is involved: the question
is what the results themselves can tell apart, whatever plays them.

    python -m tests.benchmarks.ladder_power --games 400 --ladders 40
"""

from __future__ import annotations

import argparse
import math
import random

from openskill.models import PlackettLuce

LEVELS = 4
Z95 = 1.96
P_GRID = (0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90)


def ladder_parts(p: float, games: int, seed: int) -> bool:
    """One simulated ladder: whether every adjacent pair's intervals end apart, in order."""
    rng = random.Random(seed)
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(LEVELS)]
    step = math.log(p / (1 - p))
    for _ in range(games):
        a, b = rng.sample(range(LEVELS), 2)
        a_wins = rng.random() < 1 / (1 + math.exp(-(a - b) * step))
        ranks = [1.0, 2.0] if a_wins else [2.0, 1.0]
        [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    return all(
        ratings[i].mu - Z95 * ratings[i].sigma > ratings[i - 1].mu + Z95 * ratings[i - 1].sigma
        for i in range(1, LEVELS)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="rated games a ladder plays")
    parser.add_argument("--ladders", type=int, default=40, help="ladders simulated a p")
    args = parser.parse_args()
    print(f"{args.games} rated games among {LEVELS} levels, {args.ladders} ladders a row")
    print("| each level beats the one below | every step's intervals apart |")
    print("|---:|---:|")
    for p in P_GRID:
        parted = sum(ladder_parts(p, args.games, seed) for seed in range(args.ladders))
        print(f"| {p:.0%} | {parted} of {args.ladders} |")


if __name__ == "__main__":
    main()
