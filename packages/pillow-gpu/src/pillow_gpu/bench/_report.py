"""Writes a benchmark result document as JSON, a Markdown table and a PNG plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pillow_gpu.bench._timing import MAX_ROUNDS

__all__ = ["render_markdown", "render_summary", "render_world", "write_json", "write_plot"]

#: Executor counters shown in the Markdown table (the JSON keeps every stats field).
_COUNTERS = (
    "submitted_jobs",
    "submissions",
    "largest_submission",
    "dispatches",
    "upload_bytes",
    "readback_bytes",
)


def write_json(result: dict[str, Any], path: Path) -> None:
    """Write the result document as indented JSON."""
    path.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def _num(value: Any, digits: int = 1) -> str:
    if not isinstance(value, (int, float)):
        return "-"
    return f"{value:,.{digits}f}"


def _ratio(value: Any) -> str:
    return f"{value:.2f}x" if isinstance(value, (int, float)) else "-"


def _share(value: Any) -> str:
    return f"{100 * value:.0f} %" if isinstance(value, (int, float)) else "-"


def _adapter_line(adapter: dict[str, Any]) -> str:
    name = adapter.get("device") or adapter.get("description") or "unknown adapter"
    return f"{name} ({adapter.get('backend_type', '?')}, {adapter.get('adapter_type', '?')})"


#: The ceiling-share target of the issue: batches of at least 64 at 256^2 and above.
TARGET_SHARE = 0.8
_TARGET_BATCH = 64
_TARGET_EDGE = 256


def render_summary(result: dict[str, Any], *, lane: str = "queued") -> str:
    """A short Markdown summary: the largest batch of each case against both baselines.

    One row per workload, mode and size at its largest batch, with ``lane``'s img/s, its
    ratios to sequential and multi-core Pillow and its ceiling share, then how many cases meet
    the 80 % ceiling-share target (batch >= 64 at 256^2 and above).
    """
    largest: dict[tuple[str, str, int], dict[str, Any]] = {}
    for case in result["cases"]:
        key = (case["workload"], case["mode"], case["size"])
        if case["batch"] >= largest.get(key, {"batch": 0})["batch"]:
            largest[key] = case
    lines = [
        f"Adapter: {_adapter_line(result['adapter'])}; {result['machine']['cpu_count']} CPU "
        f"cores; run {result['created']} (UTC). Lane shown: `{lane}` (CPU output).",
        "",
        f"| workload | mode | size | batch | sequential img/s | all-cores img/s | {lane} img/s "
        "| x seq | x cores | ceiling share |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    met = total = 0
    for (workload, mode, edge), case in largest.items():
        lanes = case["lanes"]
        chosen = lanes.get(lane, {})
        lines.append(
            f"| {workload} | {mode} | {edge}^2 | {case['batch']} "
            f"| {_num(lanes.get('sequential', {}).get('images_per_s'))} "
            f"| {_num(lanes.get('multiprocess', {}).get('images_per_s'))} "
            f"| {_num(chosen.get('images_per_s'))} | {_ratio(chosen.get('vs_sequential'))} "
            f"| {_ratio(chosen.get('vs_multiprocess'))} "
            f"| {_share(chosen.get('share_of_ceiling'))} |"
        )
        share = chosen.get("share_of_ceiling")
        if case["batch"] >= _TARGET_BATCH and edge >= _TARGET_EDGE and share is not None:
            total += 1
            met += share >= TARGET_SHARE
    lines += [
        "",
        f"Ceiling-share target (>= {TARGET_SHARE:.0%} at batch >= {_TARGET_BATCH}, "
        f">= {_TARGET_EDGE}^2): met in {met} of {total} cases for the `{lane}` lane.",
    ]
    return "\n".join(lines) + "\n"


def _rate(lane: dict[str, Any]) -> str:
    """``img/s (MB/s)``, or the lane's status when it was not timed."""
    if "images_per_s" not in lane:
        return str(lane.get("error") or lane.get("parity") or "not run")
    return f"{_num(lane['images_per_s'])} ({_num(lane.get('mb_per_s'))} MB/s)"


def _peer_status(lane: dict[str, Any]) -> str:
    return f" [{lane.get('error') or lane['parity']}]" if "images_per_s" in lane else ""


def render_world(result: dict[str, Any], *, lane: str = "queued") -> str:
    """Ours against the peer, the reference kernels and the transfer bound (largest batches).

    One row per workload, mode and size at its largest batch: ``img/s (MB/s)`` of ``lane``, of
    pillow-rs, of the reference lane and of the transfer bound (each with its parity status),
    then ``lane`` as a ratio of pillow-rs and of the reference (of the medians, then paired
    round by round: ``_world.paired_ratio``) and as a share of the transfer bound. MB/s counts
    source bytes as everywhere; the transfer cell's second figure is the bytes it moved (up +
    down).
    """
    largest: dict[tuple[str, str, int], dict[str, Any]] = {}
    for case in result["cases"]:
        key = (case["workload"], case["mode"], case["size"])
        if case["batch"] >= largest.get(key, {"batch": 0})["batch"]:
            largest[key] = case
    lines = [
        f"| workload | mode | size | batch | {lane} | pillow-rs | reference | transfer bound "
        "| x pillow-rs | x reference | x reference, paired | transfer share |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (workload, mode, edge), case in largest.items():
        lanes = case["lanes"]
        ours = lanes.get(lane, {})
        peer, kernel = lanes.get("pillow_rs", {}), lanes.get("reference", {})
        bound = lanes.get("transfer", {})
        bound_cell = _rate(bound)
        if "moved_mb_per_s" in bound:
            bound_cell = (
                f"{_num(bound['images_per_s'])} ({_num(bound['moved_mb_per_s'])} MB/s moved)"
            )
        lines.append(
            f"| {workload} | {mode} | {edge}^2 | {case['batch']} | {_rate(ours)} "
            f"| {_rate(peer)}{_peer_status(peer)} | {_rate(kernel)}{_peer_status(kernel)} "
            f"| {bound_cell} | {_ratio(ours.get('vs_pillow_rs'))} "
            f"| {_ratio(ours.get('vs_reference'))} | {_ratio(ours.get('vs_reference_paired'))} "
            f"| {_share(ours.get('share_of_transfer'))} |"
        )
    return "\n".join(lines) + "\n"


_HOST_STEPS = ("graph_build", "plan", "allocate", "encode", "build_result")


def _host_cost_lines(result: dict[str, Any]) -> list[str]:
    rows = [
        (case, name, lane["host_cost"])
        for case in result["cases"]
        for name, lane in case["lanes"].items()
        if lane.get("host_cost")
    ]
    if not rows:
        return []
    lines = [
        "",
        "## Host cost per job (executor lanes; one extra untimed batch, microseconds)",
        "",
        "Measured with `time.perf_counter` wrappers on each host step during one batch that is "
        "not timed; `thread CPU` is the driving thread's `time.thread_time` (lavapipe's worker "
        "threads excluded); `wall` is the whole batch over its jobs; `plan` is the planning call "
        "the executor makes (`plan_function` in the JSON).",
        "",
        "| workload | mode | size | batch | lane | "
        + " | ".join(_HOST_STEPS)
        + " | host steps | thread CPU | wall |",
        "|---|---|---|---|---|" + "---:|" * (len(_HOST_STEPS) + 3),
    ]
    for case, name, cost in rows:
        values = " | ".join(_num(cost.get(f"{step}_us_per_job"), 0) for step in _HOST_STEPS)
        lines.append(
            f"| {case['workload']} | {case['mode']} | {case['size']}^2 | {case['batch']} "
            f"| {name} | {values} | {_num(cost.get('host_steps_us_per_job'), 0)} "
            f"| {_num(cost.get('driver_thread_cpu_us_per_job'), 0)} "
            f"| {_num(cost.get('wall_us_per_job'), 0)} |"
        )
    return lines


def _matrix_line(config: dict[str, Any]) -> str:
    if config.get("cases"):
        cases = ", ".join(f"{w} {m} {s}^2 x{b}" for w, m, s, b in config["cases"])
        return f"Cases: {cases}"
    return (
        f"Matrix: workloads {', '.join(config['workloads'])}; modes "
        f"{', '.join(config['modes'])}; sizes {', '.join(f'{s}^2' for s in config['sizes'])}; "
        f"batches {', '.join(map(str, config['batches']))}"
    )


def _rounds_line(config: dict[str, Any]) -> str:
    rounds = f"{config['repeats']} timed windows per lane"
    least = config.get("min_seconds") or 0
    if least:
        rounds = f"at least {config['repeats']} timed windows per lane, more until a case's "
        rounds += f"rounds took {least:g} s (at most {MAX_ROUNDS})"
    return rounds


def render_markdown(result: dict[str, Any]) -> str:
    """The result document as a Markdown report (tables of every case, the sweep, skips)."""
    machine, config = result["machine"], result["config"]
    versions = ", ".join(f"{key} {value}" for key, value in machine["versions"].items())
    lines = [
        f"# pillow-gpu benchmark: {_adapter_line(result['adapter'])}",
        "",
        f"- Run: {result['created']} to {result.get('finished', '?')} (UTC)",
        f"- Machine: {machine['platform']}, {machine.get('cpu_model', 'CPU model not recorded')}, "
        f"{machine['cpu_count']} CPU cores, load average "
        f"at start {machine['load_average_at_start']}; Python {machine['python']}; {versions}",
        f"- Adapter: {json.dumps(result['adapter'], sort_keys=True)}",
        f"- {_matrix_line(config)}; {_rounds_line(config)} (interleaved); executor "
        f"max_jobs={config['max_jobs']}, "
        f"max_in_flight={config['max_in_flight']}; multi-core pool of "
        f"{machine.get('pool_processes', '?')} processes",
        "",
        "Every window builds fresh graphs and ends with each output's bytes. img/s is the "
        "median over the windows, spread the slowest..fastest window, MB/s counts source pixel "
        "bytes (Pillow `tobytes()` of the inputs). x seq / x cores compare with sequential "
        "Pillow and with Pillow over all cores; ceiling share is an executor lane's "
        "throughput over the direct-wgpu ceiling lane. Parity against live Pillow is checked "
        "on a full batch before any lane is timed; a lane that fails parity is not timed.",
        "",
        "## Summary (largest batch per case)",
        "",
        render_summary(result),
        "## Against pillow-rs, the reference kernels and the transfer bound",
        "",
        "Largest batch per case; each cell is img/s (MB/s of source bytes) with the lane's "
        "parity in brackets; x pillow-rs / x reference are the `queued` lane's img/s over "
        "theirs (median over median); x reference, paired is the median over rounds of the "
        "two lanes' ratio within each interleaved round, which drift between rounds does not "
        "move; transfer share is its img/s over the transfer bound's.",
        "",
        render_world(result),
        "## Every lane",
        "",
        "| workload | mode | size | batch | lane | img/s | spread (img/s) | MB/s | x seq "
        "| x cores | ceiling share | x pillow-rs | x reference | transfer share | parity |",
        "|---|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for case in result["cases"]:
        for name, lane in case["lanes"].items():
            spread = (
                f"{_num(lane.get('images_per_s_min'))}..{_num(lane.get('images_per_s_max'))}"
                if "images_per_s" in lane
                else "-"
            )
            status = lane.get("error") or lane["parity"]
            lines.append(
                f"| {case['workload']} | {case['mode']} | {case['size']}^2 | {case['batch']} "
                f"| {name} | {_num(lane.get('images_per_s'))} | {spread} "
                f"| {_num(lane.get('mb_per_s'))} | {_ratio(lane.get('vs_sequential'))} "
                f"| {_ratio(lane.get('vs_multiprocess'))} | {_share(lane.get('share_of_ceiling'))} "
                f"| {_ratio(lane.get('vs_pillow_rs'))} | {_ratio(lane.get('vs_reference'))} "
                f"| {_share(lane.get('share_of_transfer'))} | {status} |"
            )
    if result["sweep"]:
        lines += [
            "",
            "## max_jobs x max_in_flight sweep (queued lane, CPU output)",
            "",
            "| workload | mode | size | batch | max_jobs | max_in_flight | img/s | spread (img/s) "
            "| ceiling share | submissions | largest submission | parity |",
            "|---|---|---|---|---:|---:|---:|---|---:|---:|---:|---|",
        ]
        for row in result["sweep"]:
            stats = row.get("executor_stats", {})
            spread = (
                f"{_num(row.get('images_per_s_min'))}..{_num(row.get('images_per_s_max'))}"
                if "images_per_s" in row
                else "-"
            )
            lines.append(
                f"| {row['workload']} | {row['mode']} | {row['size']}^2 | {row['batch']} "
                f"| {row['max_jobs']} | {row['max_in_flight']} | {_num(row.get('images_per_s'))} "
                f"| {spread} | {_share(row.get('share_of_ceiling'))} "
                f"| {stats.get('submissions', '-')} | {stats.get('largest_submission', '-')} "
                f"| {row.get('error') or row['parity']} |"
            )
    stats_rows = [
        (case, name, lane["executor_stats"])
        for case in result["cases"]
        for name, lane in case["lanes"].items()
        if lane.get("executor_stats")
    ]
    if stats_rows:
        present = {key for _, _, stats in stats_rows for key in stats}
        keys = [key for key in _COUNTERS if key in present] or sorted(present)
        lines += [
            "",
            "## Executor counters (cumulative per lane: parity batch + timed windows)",
            "",
            "| workload | mode | size | batch | lane | " + " | ".join(keys) + " |",
            "|---|---|---|---|---|" + "---:|" * len(keys),
        ]
        for case, name, stats in stats_rows:
            values = " | ".join(str(stats.get(key, "-")) for key in keys)
            lines.append(
                f"| {case['workload']} | {case['mode']} | {case['size']}^2 | {case['batch']} "
                f"| {name} | {values} |"
            )
    lines += _host_cost_lines(result)
    if result["skipped"]:
        lines += ["", "## Skipped cases", ""]
        lines += [
            f"- {row['workload']} {row['mode']} {row['size']}^2 batch {row['batch']}: {row['why']}"
            for row in result["skipped"]
        ]
    return "\n".join(lines) + "\n"


def write_plot(result: dict[str, Any], path: Path) -> None:
    """Plot img/s against image size (largest batch per size), one panel per workload x mode.

    Needs matplotlib (``pip install "pillow-gpu[bench]"``).
    """
    try:
        import matplotlib as mpl
    except ModuleNotFoundError as error:
        msg = (
            "the benchmark plot needs matplotlib; install it with "
            '`pip install "pillow-gpu[bench]"` or run the benchmark with --no-plot'
        )
        raise ModuleNotFoundError(msg, name=error.name) from error
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(dict.fromkeys(case["workload"] for case in result["cases"]))
    modes = list(dict.fromkeys(case["mode"] for case in result["cases"]))
    if not workloads:
        workloads, modes = ["(no cases)"], ["-"]
    figure, axes = plt.subplots(
        len(workloads), len(modes), figsize=(4 * len(modes), 3 * len(workloads)), squeeze=False
    )
    for row, workload in enumerate(workloads):
        for column, mode in enumerate(modes):
            axis = axes[row][column]
            cases = [c for c in result["cases"] if (c["workload"], c["mode"]) == (workload, mode)]
            largest: dict[int, dict[str, Any]] = {}
            for case in cases:
                if case["batch"] >= largest.get(case["size"], {"batch": 0})["batch"]:
                    largest[case["size"]] = case
            sizes = sorted(largest)
            lanes = list(dict.fromkeys(name for case in cases for name in case["lanes"]))
            for lane in lanes:
                points = [
                    (size, largest[size]["lanes"].get(lane, {}).get("images_per_s"))
                    for size in sizes
                ]
                points = [(s, v) for s, v in points if isinstance(v, float)]
                if points:
                    axis.plot(*zip(*points, strict=True), marker="o", label=lane)
            axis.set_xscale("log", base=2)
            axis.set_yscale("log")
            axis.set_title(f"{workload} {mode}", fontsize=9)
            axis.set_xlabel("image edge (px), largest batch per size", fontsize=8)
            axis.set_ylabel("images/s", fontsize=8)
            axis.grid(visible=True, which="both", alpha=0.3)
            if lanes:
                axis.legend(fontsize=7)
    figure.suptitle(f"pillow-gpu: {_adapter_line(result['adapter'])}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
