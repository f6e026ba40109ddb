"""A short tour of both libraries that runs on any machine, GPU or not.

pillow-gpu: build lazy Pillow-style graphs, run them on whatever adapter wgpu finds (on a machine
without a GPU that is Mesa's software Vulkan, running the very same WGSL kernels), check every
result byte for byte against live Pillow, stream a batch through GpuBatchExecutor and files
through the `pillow-gpu apply` command, and show an unproven context refused at admission.

pixtreme-infer: list the known architectures and usable extras, then run the verification the
example architecture publishes (what needs a CUDA GPU or TensorRT is reported unverified with
its reason, never passed).

Usage: uv run --no-sync python tools/demo.py [--size N] [--batch N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps


def _source(size: int, seed: int) -> PILImage.Image:
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, size=(size, size, 3), dtype=np.uint8)
    return PILImage.fromarray(pixels, "RGB")


def _pillow_reference(source: PILImage.Image) -> PILImage.Image:
    inverted = PILImageOps.invert(source)
    return inverted.filter(PILImageFilter.MedianFilter(3)).filter(PILImageFilter.GaussianBlur(2))


def _lazy_chain(source: PILImage.Image):  # type: ignore[no-untyped-def]
    from pillow_gpu import Image, ImageFilter, ImageOps

    lazy = Image.from_pil(source)
    return (
        ImageOps.invert(lazy)
        .filter(ImageFilter.MedianFilter(3))
        .filter(ImageFilter.GaussianBlur(2))
    )


def pillow_gpu_tour(size: int, batch: int) -> None:
    import pillow_gpu
    from pillow_gpu import GpuBatchExecutor, Image, ImageOps
    from pillow_gpu.cli import main as pillow_cli
    from pillow_gpu.errors import Unsupported
    from pillow_gpu.gpu import adapter_info, evaluate

    adapter = adapter_info()
    print(
        f"== pillow-gpu {pillow_gpu.__version__} on {adapter.get('device')} "
        f"({adapter.get('adapter_type')}, {adapter.get('backend_type')})"
    )
    source = _source(size, seed=1)
    chain = _lazy_chain(source)
    print(f"lazy graph: {chain!r} (nothing evaluated yet)")
    started = time.perf_counter()
    result = evaluate(chain)
    elapsed = time.perf_counter() - started
    expected = _pillow_reference(source)
    same = result.tobytes() == expected.tobytes()
    print(
        f"invert -> MedianFilter(3) -> GaussianBlur(2) on {size}x{size} RGB: "
        f"{'byte-identical to Pillow' if same else 'DIFFERS FROM PILLOW'} ({elapsed * 1e3:.0f} ms)"
    )
    if not same:
        raise SystemExit("demo: the GPU result differs from Pillow")

    sources = {f"image-{i}": _source(size, seed=100 + i) for i in range(batch)}
    jobs = ((key, _lazy_chain(image)) for key, image in sources.items())
    matched = 0
    started = time.perf_counter()
    with GpuBatchExecutor(max_jobs=16) as executor, executor.run(jobs) as results:
        for item in results:
            reference = _pillow_reference(sources[item.input_key])
            matched += item.image.tobytes() == reference.tobytes()
        stats = dict(executor.stats)
    elapsed = time.perf_counter() - started
    print(
        f"GpuBatchExecutor.run: {matched}/{batch} results byte-identical to Pillow in "
        f"{elapsed:.2f} s; submissions={stats['submissions']} dispatches={stats['dispatches']}"
    )
    if matched != batch:
        raise SystemExit("demo: a batched GPU result differs from Pillow")

    with tempfile.TemporaryDirectory() as folder:
        inputs, outputs = Path(folder) / "in", Path(folder) / "out"
        inputs.mkdir()
        for key, image in list(sources.items())[:3]:
            image.save(inputs / f"{key}.png")
        command = ["apply", "invert,gaussian_blur:2", str(inputs), "-o", str(outputs)]
        print(f"$ pillow-gpu {' '.join(command[:2])} in/ -o out/")
        if pillow_cli([*command, "--no-progress"]) != 0:
            raise SystemExit("demo: pillow-gpu apply failed")
        for path in sorted(inputs.iterdir()):
            with PILImage.open(path) as original, PILImage.open(outputs / path.name) as written:
                reference = PILImageOps.invert(original).filter(PILImageFilter.GaussianBlur(2))
                if written.tobytes() != reference.tobytes():
                    raise SystemExit(f"demo: {path.name} from pillow-gpu apply differs from Pillow")
        print(f"pillow-gpu apply: {len(list(outputs.iterdir()))} files written, equal to Pillow")

    palette = source.convert("P")  # Pillow's default: Floyd-Steinberg to the WEB palette
    dithered = evaluate(Image.from_pil(source).convert("P"))
    if (dithered.tobytes(), dithered.getpalette()) != (palette.tobytes(), palette.getpalette()):
        raise SystemExit("demo: a Floyd-Steinberg convert('P') differs from Pillow")
    print("Floyd-Steinberg dither to the WEB palette: bytes and palette equal to Pillow")
    mirrored = evaluate(ImageOps.mirror(Image.from_pil(palette)))
    expected = PILImageOps.mirror(palette)
    if (mirrored.tobytes(), mirrored.getpalette()) != (expected.tobytes(), expected.getpalette()):
        raise SystemExit("demo: a mirrored palette image differs from Pillow")
    print("palette image mirrored in its own mode: bytes and palette equal to Pillow")
    try:  # a quantizer: the palette is made from every pixel of the image
        evaluate(Image.from_pil(source).convert("P", palette=Image.Palette.ADAPTIVE))
    except Unsupported as error:
        print(f"refused at admission (kind={error.kind}): {error}")
    else:
        raise SystemExit("demo: an adaptive convert('P') was admitted; it must be refused")


def pixtreme_infer_tour() -> None:
    from pixtreme.infer.cli import main as infer_cli

    print("\n== pixtreme-infer: pixtreme-infer list")
    infer_cli(["list"])
    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / "example-verification.json"
        print("\n== pixtreme-infer verify example")
        status = infer_cli(["verify", "example", "--output", str(record)])
        print(f"(exit status {status}; canonical JSON record: {record.stat().st_size} bytes)")
        if status != 0:
            raise SystemExit("demo: a published verification check of 'example' failed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--size", type=int, default=256, help="image side in pixels")
    parser.add_argument("--batch", type=int, default=8, help="images streamed through the executor")
    args = parser.parse_args(argv)
    pillow_gpu_tour(args.size, args.batch)
    pixtreme_infer_tour()
    print("\ndemo: done")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
