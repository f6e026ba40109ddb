"""Measure what ``import pixtreme.infer`` adds to ``import pixtreme`` (issue: at most +10 %).

Each sample is a fresh interpreter that times one import statement with perf_counter, so the
interpreter's own start-up is excluded. Samples alternate between the statements to share
machine noise. Wall-clock medians of a ~1 s import are noisy on small machines, so the script
also reports the time spent in pixtreme.infer's own modules from ``python -X importtime``.
Prints a table and writes JSON (``--output``, default import-cost.json).

    python packages/pixtreme-infer/benchmarks/import_cost.py --samples 15
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

STATEMENTS = {
    "pixtreme": "import pixtreme",
    "pixtreme.infer": "import pixtreme.infer",
    "pixtreme.infer+contracts+verification": (
        "import pixtreme.infer.contracts, pixtreme.infer.verification"
    ),
}
_PROBE = (
    "import time, sys\n"
    "start = time.perf_counter()\n"
    "{statement}\n"
    "print(time.perf_counter() - start)\n"
)
LIMIT = 0.10


def _sample(statement: str) -> float:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE.format(statement=statement)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(result.stdout.strip().splitlines()[-1])


def _own_import_time() -> tuple[float, float]:
    """(seconds spent in pixtreme.infer's own modules, cumulative seconds of the import)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import pixtreme.infer"],
        capture_output=True,
        text=True,
        check=True,
    )
    own = 0.0
    total = 0.0
    for line in result.stderr.splitlines():
        parts = [part.strip() for part in line.removeprefix("import time:").split("|")]
        if len(parts) != 3 or not parts[0].isdigit():
            continue
        name = parts[2]
        if name.startswith("pixtreme.infer"):
            own += int(parts[0]) / 1e6
        if name in {"pixtreme.infer", "pixtreme"}:
            total = max(total, int(parts[1]) / 1e6)
    return own, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--output", type=Path, default=Path("import-cost.json"))
    arguments = parser.parse_args()
    for statement in STATEMENTS.values():  # warm the file-system cache once
        _sample(statement)
    times: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(arguments.samples):
        for name, statement in STATEMENTS.items():
            times[name].append(_sample(statement))
    base = statistics.median(times["pixtreme"])
    rows = []
    print(f"{'import':40} {'median s':>10} {'min s':>10} {'added':>8}")
    for name, values in times.items():
        median = statistics.median(values)
        added = median / base - 1.0
        rows.append(
            {"import": name, "median_s": median, "min_s": min(values), "added_fraction": added}
        )
        print(f"{name:40} {median:10.4f} {min(values):10.4f} {added:+8.1%}")
    own = [_own_import_time() for _ in range(5)]
    own_s = statistics.median(item[0] for item in own)
    own_fraction = statistics.median(item[0] / item[1] for item in own)
    print(
        f"-X importtime: pixtreme.infer's own modules take {own_s * 1e3:.2f} ms "
        f"= {own_fraction:.2%} of the whole import"
    )
    infer_added = rows[1]["added_fraction"]
    verdict = "within" if infer_added <= LIMIT else "OVER"
    print(f"\nimport pixtreme.infer adds {infer_added:+.1%} ({verdict} the +{LIMIT:.0%} limit)")
    record = {
        "benchmark": "import-cost",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "samples": arguments.samples,
        "limit_added_fraction": LIMIT,
        "within_limit": infer_added <= LIMIT,
        "rows": rows,
        "importtime_own_s": own_s,
        "importtime_own_fraction": own_fraction,
    }
    arguments.output.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    print(f"wrote {arguments.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
