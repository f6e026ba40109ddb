"""Random graphs against live Pillow over a range of seeds: the draw of pillow-gpu's random-graph
parity test, run for as long as you like.

Usage (from the repository root, with the workspace installed):

    python tools/random_graphs.py --start 0 --count 100000
    python tools/random_graphs.py --start 0 --count 20000 --large --output out/graphs.json
    python tools/random_graphs.py --start 0 --count 20000 --files path/to/images
    python tools/random_graphs.py --start 0 --count 20000 --files path/to/images --frames
    python tools/random_graphs.py --start 0 --count 20000 --files path/to/images --damage
    python tools/random_graphs.py --start 0 --count 20000 --files path/to/images --structure

Each seed draws one graph (a source in one of 18 stored modes, one to three steps, or four with
``--large``) from ``packages/pillow-gpu/tests/gpu/random_graph_draw.py`` and runs it
on this machine's adapter and with Pillow. A graph is ``exact`` (the GPU's result and the CPU
route's, ``to_pil()``, each with Pillow's bytes (a 1 image's stored bytes too), palette (one
an L, 1, I or F image keeps inside too) and ``info``, and the lazy image's ``getpalette()`` and
``has_transparency_data`` asked before evaluation with Pillow's answers; a ``save`` step, with
or without encoder options (``random_graph_saves.py``), writes Pillow's bytes, the fields
writers fill from the clock or from uninitialised memory aside), ``refused``
(``Unsupported``/``Limit`` on the GPU, the CPU route exact) or ``both raise`` (Pillow refuses
the call and the recording raises the same exception); anything else is a difference, printed
with its seed and graph as it is found. ``--large`` draws some widths up to 330 and heights
up to 100. ``--files DIR`` takes each source from a file under DIR instead (the one the seed
picks among those Pillow opens, up to ``--max-pixels``), opened by each library: Pillow raises
where it loads a file it cannot decode, the lazy graph where its pixels are first needed, and
either place counts as Pillow's error. A third of the graphs on a file of several frames seek
to another frame first (half of those after a seek to a frame passed over unused);
``--frames`` keeps only the files of several frames (animations, multi-page files).
``--damage`` damages each seed's file first (``random_graph_damage.py``: header bytes set to
boundary values, flipped bits, a span of noise, a cut, a repeated span), so the graphs run on
files as downloads and disks break them; Pillow opens, refuses or fails to load each copy, and
the lazy graph must agree wherever it does. ``--structure`` damages the structure instead
(``random_graph_structure.py``: a PNG, WebP, AVIF, JPEG or GIF file's chunk, box, segment or
block dropped, repeated, swapped, given a wrong length or odd payload bytes, or an entry of a
TIFF directory, in a TIFF file or an Exif block, changed), over the files whose structure it
walks.

``--batch N`` runs the graphs through ``GpuBatchExecutor`` instead, N seeds to a batch
(``random_graph_batches.py``): each graph now and then followed by a sibling of its shape (the
same steps over other pixels, or the same file opened again), each batch through an executor
whose settings its first seed draws (``max_jobs``, ``max_in_flight``, CPU or GPU outputs,
decode threads); every job must deliver Pillow's result or be refused on its own. Graphs that
Pillow or the recording refuse are left out of batches (the single-graph runs check those).
``--threads T`` runs T batches at once, each with its own executor.

It prints the counts every ``--every`` seeds and at the end, writes them and every difference
to ``--output`` (JSON), and exits 1 when any graph differed. The test itself runs 150 seeds (30
large) in CI; a difference found here is replayed with the seed it prints, or kept as a graph
in the test's ``FOUND`` table.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import shutil
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DRAW = ROOT / "packages/pillow-gpu/tests/gpu/random_graph_draw.py"
DAMAGE = DRAW.with_name("random_graph_damage.py")
STRUCTURE = DRAW.with_name("random_graph_structure.py")
BATCHES = DRAW.with_name("random_graph_batches.py")
AGREE = ("exact", "refused", "both raise")


def _draw_module(path: Path = DRAW) -> ModuleType:
    """A module of the test suite's draw (by default the one that draws and compares the
    graphs), imported from its path as a module of a package of its folder (they import the
    modules beside them relatively)."""
    package = sys.modules.get("random_graphs_tests")
    if package is None:
        package = ModuleType("random_graphs_tests")
        package.__path__ = [str(path.parent)]
        sys.modules[package.__name__] = package
    name = f"{package.__name__}.{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"random_graphs: cannot import the draw from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _sources(folder: Path, max_pixels: int, *, frames: bool = False) -> list[Path]:
    """The files under ``folder`` Pillow opens, of at most ``max_pixels`` (and of several
    frames, with ``frames``), sorted."""
    from PIL import Image

    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in sorted(folder.rglob("*")):
            try:
                with Image.open(path) as image:
                    several = getattr(image, "n_frames", 1) > 1
                    if image.size[0] * image.size[1] <= max_pixels and (several or not frames):
                        found.append(path)
            except Exception:  # not an image Pillow opens: no source
                continue
    return found


def _outcome(
    draw: ModuleType,
    seed: int,
    large: bool,
    files: list[Path],
    damage: tuple[ModuleType, Path, bool] | None,
) -> str:
    try:
        if files and damage is not None:
            damaging, folder, structure = damage
            source = files[seed % len(files)]
            return str(damaging.damaged_file_outcome(source, seed, folder, structure=structure))
        if files:
            return str(draw.file_outcome(files[seed % len(files)], seed))
        return str(draw.outcome(seed, large=large))
    except Exception as error:  # a crash of the comparison itself is a difference too
        where = traceback.format_exc(limit=-2).strip().replace("\n", " | ")
        return f"crash {type(error).__name__}: {error} ({where[-400:]})"


class _Batches:
    """Seeds run in batches through executors (``--batch``), on ``threads`` threads."""

    def __init__(
        self,
        args: argparse.Namespace,
        files: list[Path],
        damage: tuple[ModuleType, Path, bool] | None,
    ) -> None:
        self.args, self.files, self.damage = args, files, damage
        self.batches = _draw_module(BATCHES)
        self.counts: Counter[str] = Counter()
        self.differences: list[dict[str, Any]] = []
        self.done = 0
        self.started = time.perf_counter()
        self._lock = threading.Lock()  # the counts, and building graphs (the draw's globals)
        starts = range(args.start, args.start + args.count, args.batch)
        self._chunks = iter(
            [range(first, min(first + args.batch, args.start + args.count)) for first in starts]
        )

    def run(self) -> None:
        workers = [threading.Thread(target=self._work) for _ in range(self.args.threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

    def _work(self) -> None:
        while True:
            with self._lock:
                chunk = next(self._chunks, None)
            if chunk is None:
                return
            self._run(chunk)

    def _members(self, chunk: range, handles: contextlib.ExitStack) -> list[Any]:
        batches, files = self.batches, self.files
        members: list[Any] = []
        for seed in chunk:
            if not files:
                members += batches.generated_members(seed, large=self.args.large)
                continue
            path = files[seed % len(files)]
            if self.damage is not None:
                damaging, folder, structure = self.damage
                damaged = folder / f"damaged-{seed}{path.suffix}"
                draw = damaging.damaged_structure if structure else damaging.damaged
                damaged.write_bytes(draw(path.read_bytes(), seed)[1])
                handles.callback(damaged.unlink, missing_ok=True)
                path = damaged
            members += batches.file_members(path, seed, handles)
        return members

    def _run(self, chunk: range) -> None:
        setting = self.batches.batch_setting(chunk[0])
        with contextlib.ExitStack() as handles:
            try:
                with self._lock:
                    members = self._members(chunk, handles)
                outcomes = self.batches.batch_outcomes(members, setting) if members else []
            except Exception as error:  # a crash of the run itself is a difference too
                where = traceback.format_exc(limit=-2).strip().replace("\n", " | ")
                members, outcomes = [], [f"crash {type(error).__name__}: {error} ({where[-400:]})"]
        with self._lock:
            for index, outcome in enumerate(outcomes):
                agreed = outcome in ("exact", "refused")
                self.counts[outcome if agreed else "different"] += 1
                if not agreed:
                    seed = members[index].seed if members else chunk[0]
                    source = str(self.files[seed % len(self.files)]) if self.files else None
                    self.differences.append(
                        {"seed": seed, "file": source, "setting": str(setting), "outcome": outcome}
                    )
                    print(f"seed {seed} ({setting}): {outcome}", flush=True)
            before, self.done = self.done, self.done + len(chunk)
            every = self.args.every
            if self.done // every > before // every or self.done == self.args.count:
                elapsed = time.perf_counter() - self.started
                print(
                    f"{self.done} graphs in {elapsed:.0f} s (jobs): {dict(self.counts)}",
                    flush=True,
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--count", type=int, default=1000, help="seeds to run")
    parser.add_argument("--large", action="store_true", help="some sizes up to 330 x 100")
    parser.add_argument("--files", type=Path, help="take the sources from the files under DIR")
    parser.add_argument(
        "--max-pixels", type=int, default=1 << 22, help="largest file (pixels) with --files"
    )
    parser.add_argument(
        "--frames", action="store_true", help="with --files: only files of several frames"
    )
    parser.add_argument(
        "--damage",
        action="store_true",
        help="with --files: damage each seed's file first (cut, flipped bits, noise, repeats)",
    )
    parser.add_argument(
        "--structure",
        action="store_true",
        help="with --files: damage each seed's file's structure first (chunks, boxes, "
        "segments, blocks, TIFF entries); only files whose structure is walked",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=0,
        help="run the graphs through GpuBatchExecutor, N seeds to a batch",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="with --batch: run T batches at once"
    )
    parser.add_argument("--every", type=int, default=1000, help="print the counts every N")
    parser.add_argument("--output", type=Path, help="write the counts and differences (JSON)")
    args = parser.parse_args(argv)
    if args.count < 1 or args.every < 1:
        parser.error("--count and --every must be at least 1")
    if args.batch < 0 or args.threads < 1 or (args.threads > 1 and not args.batch):
        parser.error("--batch must be at least 0, --threads at least 1 (more only with --batch)")

    draw = _draw_module()
    files: list[Path] = []
    if args.files is not None:
        files = _sources(args.files, args.max_pixels, frames=args.frames)
        if args.structure:
            walked = _draw_module(STRUCTURE)
            files = [path for path in files if walked.units(path.read_bytes())]
        if not files:
            what = "of several frames " if args.frames else ""
            parser.error(f"--files: no file {what}under {args.files} that Pillow opens")
    elif args.frames or args.damage or args.structure:
        parser.error("--frames, --damage and --structure need --files DIR")
    if args.damage and args.structure:
        parser.error("--damage and --structure are two kinds of damage: pick one")
    counts: Counter[str] = Counter()
    differences: list[dict[str, Any]] = []
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's deprecation and palette warnings, both sides
        damaging = args.damage or args.structure
        folder = Path(tempfile.mkdtemp(prefix="random-graphs-")) if damaging else None
        damage = None if folder is None else (_draw_module(DAMAGE), folder, args.structure)
        if args.batch:
            batches = _Batches(args, files, damage)
            batches.run()
            counts, differences = batches.counts, batches.differences
        singles = range(args.start, args.start + (0 if args.batch else args.count))
        for done, seed in enumerate(singles, start=1):
            outcome = _outcome(draw, seed, args.large, files, damage)
            agreed = outcome in (*AGREE, "not opened")
            counts[outcome if agreed else "different"] += 1
            if not agreed:
                source = str(files[seed % len(files)]) if files else None
                differences.append({"seed": seed, "file": source, "outcome": outcome})
                print(f"seed {seed}: {outcome}", flush=True)
            if done % args.every == 0 or done == args.count:
                elapsed = time.perf_counter() - started
                print(f"{done} graphs in {elapsed:.0f} s: {dict(counts)}", flush=True)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "start": args.start,
            "count": args.count,
            "large": args.large,
            "files": None if args.files is None else str(args.files),
            "damage": "structure" if args.structure else args.damage,
            "batch": args.batch,
            "threads": args.threads,
            "counts": dict(counts),
            "differences": differences,
        }
        args.output.write_text(json.dumps(report, indent=2) + "\n")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
