"""The analyser's speed gate: this checkout against a baseline build, side by side in one run.

The baseline (``GATE_BASELINE``, a git revision; by default the main branch's last commit before
the analyser was rewritten for readability) is checked out in a temporary git worktree and its
analyser compiled there with mypyc. Each build then runs in its own process (each imports its own
``engine``, compiled), the two taking turns for ``GATE_ROUNDS`` rounds on the same hands; each
figure is the best of its rounds, so a busy moment on the machine counts against neither. The
ratio is this build's speed over the baseline's: the gate asks at least 0.75 for the least
deadwood and the full analysis of 14-card hands, and under 50 ms for the slowest known 30-card
hand. Two rows under one wild per meld show what the search of every split of the wild-rank cards
costs: 14-card hands, and issue 20's 30-card hand (eight jokers and two sevens, sevens wild),
whose full analysis the gate asks under 200 ms. (A baseline from before the wild-rank cards
could stand for themselves plays them as wilds alone: it answers a different question there, and
those rows' ratios are for information.)

``GATE_BASELINE`` may name any revision: one with the analyser in one module (``analysis.py``)
is compiled as that module alone; one with the ``analysis`` package, as its Makefile compiles the
engine's group (deploy/build_native.py). ``make bench`` runs it against the default baseline;
``GATE_BASELINE=main`` measures a branch against the main branch.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine import Rules
from engine.cards import parse_cards, parse_rank
from tests.benchmarks.bench_analysis import HANDS, HARD_HANDS, SEED, deal
from tests.service.costly_hands import ISSUE_20

ROOT = Path(__file__).resolve().parents[2]
BASELINE = os.environ.get("GATE_BASELINE", "f5a3215")
ROUNDS = int(os.environ.get("GATE_ROUNDS", "3"))
RULE_FIX = "0b41e4b"
"""The revision from which a wild-rank card may stand for itself: a baseline before it answers
the one-wild-per-meld rows under the old rule."""

# The worker, run by each build's own process: times the cases it is sent (CPU time, so other
# load on the machine counts less) and answers in JSON. Its first argument is the build's root;
# it refuses to time an engine that is not that build's compiled one.
WORKER = r"""
import json, statistics, sys, time
root = sys.argv[1]
sys.path.insert(0, root)
import engine.analysis
from engine import Rules, analyse, min_deadwood
where = engine.analysis.__file__ or ""
if not (where.startswith(root) and where.endswith(".so")):
    raise SystemExit(f"not the compiled analyser of {root}: {where}")
job = json.load(sys.stdin)
answer = {}
for name, spec, wild, kind, hands in job:
    rules = Rules.from_spec(spec)
    function = min_deadwood if kind == "min" else analyse
    if kind == "slowest":
        timed = []
        for hand in hands:
            times = []
            for _ in range(3):
                start = time.process_time()
                analyse(hand, wild, rules)
                times.append(time.process_time() - start)
            timed.append(statistics.median(times))
        answer[name] = max(timed)
        continue
    start = time.process_time()
    for hand in hands:
        function(hand, wild, rules)
    answer[name] = (time.process_time() - start) / len(hands)
print(json.dumps(answer))
"""


def cases() -> list[tuple[str, str | dict[str, object], int, str, list[list[int]]]]:
    """(name, rules, wild rank, what to time, hands): the gate's cases and the informative one."""
    online = Rules.from_spec("online")
    fourteen = deal(online, 4, 14, HANDS, SEED + 14)
    one_wild = {"preset": "online", "max_wilds_per_meld": 1}
    limited = deal(Rules.from_spec(one_wild), 4, 14, HANDS // 4, SEED + 1)
    hard = [parse_cards(text.split()) for text in HARD_HANDS]
    issue_20 = ISSUE_20["hand"], ISSUE_20["wild"], ISSUE_20["rules"]
    return [
        ("min deadwood, 14 cards, online, K wild", "online", 13, "min", fourteen),
        ("full analysis, 14 cards, online, K wild", "online", 13, "full", fourteen),
        ("full analysis, 14 cards, one wild per meld", one_wild, 13, "full", limited),
        (
            "slowest known 30-card hand (online+8 jokers)",
            {"preset": "online", "jokers": 8},
            3,
            "slowest",
            hard,
        ),
        (
            "issue 20's 30-card hand, one wild per meld",
            issue_20[2],
            parse_rank(issue_20[1]),
            "slowest",
            [parse_cards(issue_20[0])],
        ),
    ]


@contextmanager
def baseline_build(revision: str) -> Iterator[Path]:
    """The baseline checked out in a temporary git worktree, its analyser compiled."""
    scratch = Path(tempfile.mkdtemp(prefix="analyser-gate-"))
    tree = scratch / "baseline"
    git = ["git", "-C", str(ROOT)]
    subprocess.run(
        [*git, "worktree", "add", "--detach", str(tree), revision], check=True, capture_output=True
    )
    try:
        if (tree / "engine" / "analysis.py").exists():
            command = [str(Path(sys.executable).parent / "mypyc"), "engine/analysis.py"]
        else:
            modules = sorted(str(p.relative_to(tree)) for p in tree.glob("engine/analysis/*.py"))
            group = [*modules, "engine/game/melding.py"]
            command = [sys.executable, "deploy/build_native.py", "engine.native", *group]
        built = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
        if built.returncode:
            raise SystemExit(f"mypyc failed on the baseline:\n{built.stdout}\n{built.stderr}")
        yield tree
    finally:
        subprocess.run(
            [*git, "worktree", "remove", "--force", str(tree)], check=False, capture_output=True
        )
        shutil.rmtree(scratch, ignore_errors=True)


def timed(root: Path, job: str) -> dict[str, float]:
    """One round of the cases in the build at ``root``, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(root)],
        input=job,
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"the worker failed in {root}:\n{done.stderr}")
    answer: dict[str, float] = json.loads(done.stdout)
    return answer


def main() -> None:
    job = cases()
    text = json.dumps(job)
    print(f"building the baseline ({BASELINE}) with mypyc ...", flush=True)
    with baseline_build(BASELINE) as baseline:
        best: dict[str, dict[str, float]] = {"baseline": {}, "this": {}}
        for _ in range(ROUNDS):
            for label, root in (("baseline", baseline), ("this", ROOT)):
                for name, seconds in timed(root, text).items():
                    best[label][name] = min(seconds, best[label].get(name, seconds))
    ancestry = ["git", "-C", str(ROOT), "merge-base", "--is-ancestor", RULE_FIX, BASELINE]
    new_rule = not subprocess.run(ancestry, check=False, capture_output=True).returncode
    width = max(len(name) for name, *_ in job)
    print(f"best of {ROUNDS} rounds, CPU time per hand; ratio: this build's speed / baseline's")
    print(f"{'case':<{width}}  {'baseline':>11}  {'this':>11}  {'ratio':>6}  gate")
    for name, _, _, kind, _ in job:
        before, now = best["baseline"][name], best["this"][name]
        if "issue 20" in name:
            gate = f"this < 200 ms: {'pass' if now < 0.200 else 'FAIL'}"
        elif kind == "slowest":
            gate = f"this < 50 ms: {'pass' if now < 0.050 else 'FAIL'}"
        elif "one wild" in name:
            gate = "- (information)" if new_rule else "- (information; old rule)"
        else:
            gate = f">= 0.75: {'pass' if before / now >= 0.75 else 'FAIL'}"
        ratio = before / now
        print(f"{name:<{width}}  {_shown(before):>11}  {_shown(now):>11}  {ratio:>6.2f}  {gate}")


def _shown(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs" if seconds < 0.001 else f"{seconds * 1000:,.2f} ms"


if __name__ == "__main__":
    main()
