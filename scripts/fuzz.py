"""Run the fuzz campaign outside pytest: mutants of the shipped kits through the CLI, fenced.

    PYTHONPATH=src python scripts/fuzz.py --count 2000 --seed 1   # a campaign, with its figures
    PYTHONPATH=src python scripts/fuzz.py --kit mlem --seed 123 --keep /tmp/m   # one mutant, kept
    PYTHONPATH=src python scripts/fuzz.py --ops inputs --count 500   # sheets, fonts, art

Prints: mutants run, exits by code, slowest run, peak memory (ru_maxrss of the children),
failures (each with its reproducer). Exit 1 when a mutant failed. Failures on the campaign's
allow-list (tests/test_fuzz.py) are counted apart; --strict counts them as failures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fuzzmutate import KITS, mutate, write  # noqa: E402
from fuzzrun import Campaign, campaign_mutants  # noqa: E402
from pnpkit.checks import trust  # noqa: E402


def trusted_campaign(tmp: Path) -> None:
    """The campaign's own trust list, as the test suite's (tests/conftest.py), never the user's:
    the kits' rules.py and Python faces run in every copy of them under tmp, so a mutant is
    judged on what it breaks, not stopped at the trust check."""
    os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
    trust.remember(ROOT / "components")
    trust.remember(tmp)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1000, help="mutants to run (default 1000)")
    p.add_argument(
        "--seed", type=int, default=0, help="first seed (mutant i is kit i mod 4, seed SEED+i)"
    )
    p.add_argument("--kit", choices=KITS, help="only this kit (with --keep: the mutant to write)")
    p.add_argument(
        "--ops",
        default="yaml",
        help="the edits: yaml (YAML, templates and the command line; the default), inputs "
        "(added spreadsheets, fonts, art SVGs and runaway templates), or hostile:NAME (a "
        "fixed case of tests/fuzzinputs.py's HOSTILE, with --keep)",
    )
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--keep", type=Path, metavar="DIR", help="write the mutant of --kit/--seed to DIR and stop"
    )
    p.add_argument("--strict", action="store_true", help="failures on the allow-list fail too")
    p.add_argument("--quiet", action="store_true", help="no line per failure, only the figures")
    args = p.parse_args()
    if args.keep:
        if not args.kit:
            p.error("--keep needs --kit")
        mutant = mutate(args.kit, args.seed, args.ops)
        write(mutant, args.keep, args.keep / "sentinel")
        print(mutant.describe())
        run = f"PYTHONPATH={ROOT / 'src'} {sys.executable} -m pnpkit"
        trusted = "--trust"  # as the campaign trusts its copies of the kits
        if mutant.command == "build":  # the campaign builds over a good build of the kit
            kit = ROOT / "components" / args.kit
            print(f"cd {args.keep} && {run} build {kit} --out out {trusted}")
        print(f"cd {args.keep} && {run} {' '.join(mutant.argv('out'))} {trusted}")
        return 0
    from test_fuzz import ALLOWED

    kits = (args.kit,) if args.kit else KITS
    with tempfile.TemporaryDirectory(prefix="pnpkit-fuzz-") as tmp:
        trusted_campaign(Path(tmp))
        campaign = Campaign(Path(tmp) / "c", args.workers, allowed={} if args.strict else ALLOWED)
        started = time.perf_counter()
        campaign.prepare(kits)
        prepared = time.perf_counter() - started

        done = [0]

        def show(outcome):
            done[0] += 1
            if done[0] % 100 == 0:
                print(
                    f"... {done[0]} mutants, {time.perf_counter() - started:.0f}s",
                    file=sys.stderr,
                    flush=True,
                )
            if outcome.failures and not args.quiet:
                print(("allowed " if outcome.allowed else "") + outcome.report(), flush=True)
            elif outcome.retried and not args.quiet:
                print(
                    f"retried alone, passed: {outcome.mutant.describe()} ({outcome.seconds:.2f}s)",
                    flush=True,
                )

        campaign.run(campaign_mutants(args.seed, args.count, kits, args.ops), show)
        figures = campaign.summary()
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    figures["setup_s"] = round(prepared, 1)
    for key, value in figures.items():
        print(f"{key}: {value}")
    return 1 if figures["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
