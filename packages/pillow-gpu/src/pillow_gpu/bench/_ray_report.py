"""The Ray benchmark's report: a Markdown table of the lanes, and PREFIX.json / PREFIX.md."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pillow_gpu.bench._report import write_json

__all__ = ["failed_lanes", "render_ray_markdown", "render_ray_table", "write_ray_results"]


def _cell(value: Any, digits: int = 1, *, signed: bool = False) -> str:
    if not isinstance(value, (int, float)):
        return "-"
    return f"{value:+,.{digits}f}" if signed else f"{value:,.{digits}f}"


_HEADER = (
    "| lane | actors | files | wall s | files/s | ms/file | overhead vs single (ms/file) "
    "| x single | first run s | startup s | actor init s | steady ms/file "
    "| steady overhead (ms/file) | parity |"
)


def render_ray_table(result: Mapping[str, Any]) -> str:
    """The lanes as a Markdown table (one row per lane)."""
    lines = [_HEADER, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for lane in result["lanes"]:
        parity = lane.get("error") or lane["parity"]
        if lane.get("refused"):
            parity += f" ({lane['refused']} refused)"
        ratio = lane.get("vs_single")
        lines.append(
            f"| {lane['lane']} | {lane['actors'] or '-'} | {lane['files']} "
            f"| {_cell(lane.get('wall_s'), 2)} | {_cell(lane.get('files_per_s'))} "
            f"| {_cell(lane.get('ms_per_file'))} "
            f"| {_cell(lane.get('overhead_ms_per_file'), signed=True)} "
            f"| {f'{ratio:.2f}x' if isinstance(ratio, float) else '-'} "
            f"| {_cell(lane.get('first_run', {}).get('wall_s'), 2)} "
            f"| {_cell(lane.get('startup_s'), 2)} | {_cell(lane.get('actor_init_s'), 2)} "
            f"| {_cell(lane.get('steady_ms_per_file'))} "
            f"| {_cell(lane.get('steady_overhead_ms_per_file'), signed=True)} | {parity} |"
        )
    return "\n".join(lines) + "\n"


def render_ray_markdown(result: Mapping[str, Any]) -> str:
    """The result document as a short Markdown report: the setting, then the table."""
    machine, config, cluster = result["machine"], result["config"], result.get("cluster", {})
    adapter = result.get("adapter") or {}
    started = cluster.get("start_s")
    versions = ", ".join(f"{key} {value}" for key, value in machine["versions"].items())
    lines = [
        "# pillow-gpu Ray benchmark",
        "",
        f"- Run: {result['created']} to {result.get('finished', '?')} (UTC)",
        f"- Machine: {machine['platform']}, {machine.get('cpu_model', 'CPU model not recorded')}, "
        f"{machine['cpu_count']} CPU cores, load average at "
        f"start {machine['load_average_at_start']}; Python {machine['python']}; {versions}; "
        f"ray {cluster.get('ray', '?')}",
        f"- Adapter: {adapter.get('device') or adapter.get('description') or '?'} "
        f"({adapter.get('backend_type', '?')}, {adapter.get('adapter_type', '?')})",
        f"- Inputs: {result['inputs']['files']} files from {result['inputs']['folder']} "
        f"({result['inputs']['bytes'] / 1e6:.1f} MB); chain `{config['chain']}`; outputs "
        f"{config['output_format']}",
        f"- Cluster: {cluster.get('address', '?')}, resources {cluster.get('resources', {})}, "
        + (f"started in {started:.2f} s" if isinstance(started, float) else "already running")
        + f"; batch_size {config['batch_size']}, {cluster.get('gpus_per_actor', '?')} GPU(s) "
        f"per actor; executor max_jobs={config['max_jobs']}, "
        f"max_in_flight={config['max_in_flight']} (per actor)",
        f"- {config['repeats']} timed window(s) per lane, interleaved, after "
        + ("one untimed first run each" if config["warmup"] else "no warm-up")
        + "; wall s is the median window. Overhead is (lane wall - single wall) / files. "
        "Startup is dataset start to the first batch in an actor (actor processes, imports, "
        "executor creation: actor init is the constructor alone); steady is the rest of the "
        "run, and its overhead is (steady - single wall) / files.",
        "",
        render_ray_table(result),
    ]
    return "\n".join(lines)


def write_ray_results(result: dict[str, Any], prefix: Path) -> list[Path]:
    """Write ``PREFIX.json`` and ``PREFIX.md``; return their paths."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    outputs = [prefix.with_name(prefix.name + ".json"), prefix.with_name(prefix.name + ".md")]
    write_json(result, outputs[0])
    outputs[1].write_text(render_ray_markdown(result), encoding="utf-8")
    return outputs


def failed_lanes(result: Mapping[str, Any]) -> list[str]:
    """The lanes whose outputs were not Pillow's or that could not run."""
    return [lane["lane"] for lane in result["lanes"] if lane["parity"] != "exact"]
