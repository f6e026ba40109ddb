"""Keep-going streams: ``errors="deliver"`` yields a BatchFailure in each failed job's place.

Real files on disk (PNG sources, an animated GIF, a truncated PNG), real kernels, results
compared byte for byte with live Pillow; real SIGINTs for the interrupt soak (whose helpers
come from the interrupt tests).
"""

from __future__ import annotations

import gc
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import BatchFailure, BatchResult, GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.executor import (
    BatchDecodeError,
    BatchError,
    BatchLimit,
    BatchUnsupported,
    ExecutionError,
)
from pillow_gpu.executor import _executor as executor_module
from pillow_gpu.gpu import _stack, plan_graph

from .conftest import ZERO_KEYS, credits_now
from .test_pgpu_executor_interrupt import TRAPS, _expected_trap, _next_interrupted, _trap_file

Factory = Callable[..., GpuBatchExecutor]
ZERO = dict.fromkeys(ZERO_KEYS, 0)

#: An executor GPU cap that every good job fits and the Limit job (2 MiB of L) exceeds.
GPU_CAP = 1 << 20
#: Good jobs cycle through these (mode, size, lazy op, Pillow op).
GOOD: list[tuple[str, tuple[int, int], Callable[[Any], Any], Callable[[Any], Any]]] = [
    ("L", (19, 17), ImageOps.invert, PILImageOps.invert),
    ("RGB", (24, 9), ImageOps.invert, PILImageOps.invert),
    ("RGBA", (7, 13), ImageOps.flip, PILImageOps.flip),
    ("LA", (3, 2), ImageOps.mirror, PILImageOps.mirror),
]
#: Failure letters: the error class, kind and stage each must carry.
FAILS = {
    "U": (BatchUnsupported, "Unsupported", "admission"),  # a GIF quantized to a new palette
    "D": (BatchDecodeError, "Decode", "decode"),  # a truncated PNG (its header reads fine)
    "L": (BatchLimit, "Limit", "admission"),  # a graph above the executor's gpu_bytes cap
}


class Corpus:
    """Files in ``tmp_path`` and the lazy graph (plus expected Pillow output) for each letter."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.gif = root / "animated.gif"
        frames = [PILImage.new("P", (8, 6), index) for index in range(3)]
        frames[0].save(self.gif, save_all=True, append_images=frames[1:])
        source = make_image("RGB", (64, 48), seed=7)
        whole = root / "whole.png"
        source.save(whole)
        data = whole.read_bytes()
        self.truncated = root / "truncated.png"
        self.truncated.write_bytes(data[: len(data) * 3 // 5])

    def job(self, letter: str, index: int) -> tuple[Any, PILImage.Image | None]:
        """The lazy graph for input ``index`` of kind ``letter`` and Pillow's expected image."""
        if letter == "G":
            mode, size, lazy_op, pil_op = GOOD[index % len(GOOD)]
            path = self.root / f"good-{index}.png"
            make_image(mode, size, seed=index).save(path)
            with PILImage.open(path) as original:
                expected = pil_op(original.convert(mode))
            return lazy_op(Image.open(path)), expected
        if letter == "U":
            adaptive = Image.Palette.ADAPTIVE  # a quantizer: its palette depends on the pixels
            return Image.open(self.gif).convert("RGB").convert("P", palette=adaptive), None
        if letter == "D":
            return ImageOps.invert(Image.open(self.truncated)), None
        if letter == "L":
            return ImageOps.invert(Image.new("L", (2048, 1024), index % 256)), None
        raise AssertionError(letter)


def _key(index: int, letter: str) -> str:
    return f"{index:03d}-{letter}"


def _check_failure(item: Any, index: int, letter: str) -> None:
    cls, kind, stage = FAILS[letter]
    assert isinstance(item, BatchFailure), (index, letter, item)
    assert item.ok is False
    assert (item.job_id, item.input_key, item.kind, item.stage) == (
        index,
        _key(index, letter),
        kind,
        stage,
    )
    error = item.error
    assert isinstance(error, cls)
    assert (error.job_id, error.input_key, error.kind, error.stage) == (
        index,
        _key(index, letter),
        kind,
        stage,
    )
    assert error.why
    assert error.observed
    assert error.fix
    assert str(error).startswith("why: ")


# Each pattern is one input stream: G good, U unsupported, D decode failure, L limit.
PATTERNS = {
    "mixed": "GUGDGLGG",
    "fail-first": "UDLGGG",
    "fail-last": "GGGDUL",
    "fail-runs": "GDDDGUUUGLLG",
    "only-fails": "UDLDU",
    "only-good": "GGGGG",
}
CASES = [
    (name, output, max_jobs)
    for name in PATTERNS
    for output in ("cpu", "gpu")
    for max_jobs in (2, 64)
]


@pytest.mark.parametrize(
    ("pattern", "output", "max_jobs"),
    CASES,
    ids=[f"{name}-{output}-max_jobs{jobs}" for name, output, jobs in CASES],
)
def test_deliver_yields_every_job_once_in_order(
    make_executor: Factory, tmp_path: Path, pattern: str, output: str, max_jobs: int
) -> None:
    letters = PATTERNS[pattern]
    corpus = Corpus(tmp_path)
    expected: dict[str, PILImage.Image | None] = {}
    jobs = []
    for index, letter in enumerate(letters):
        lazy, image = corpus.job(letter, index)
        expected[_key(index, letter)] = image
        jobs.append((_key(index, letter), lazy))
    assert plan_graph(corpus.job("L", 0)[0]).gpu_bytes > GPU_CAP
    executor = make_executor(gpu_bytes=GPU_CAP, max_jobs=max_jobs, max_in_flight=2)
    seen = []
    with executor.run(iter(jobs), output=output, errors="deliver") as results:
        for index, item in enumerate(results):
            letter = letters[index]
            seen.append(item.input_key)
            if letter != "G":
                _check_failure(item, index, letter)
                continue
            assert isinstance(item, BatchResult), (index, item)
            assert item.ok is True
            assert (item.job_id, item.input_key) == (index, _key(index, letter))
            image = item.image.download() if output == "gpu" else item.image
            want = expected[_key(index, letter)]
            assert isinstance(image, PILImage.Image)
            assert want is not None
            assert_image_equal(image, want)
            del item, image  # a GPU handle returns its credits here
    assert seen == [key for key, _ in jobs]  # every job once, in input order
    assert results.finished
    gc.collect()
    assert credits_now(executor) == ZERO
    # Jobs that reached admission (good and decode-failed ones) are counted; rejected ones not.
    assert executor.stats["submitted_jobs"] == letters.count("G") + letters.count("D")
    outcomes = executor._outcomes
    assert (outcomes.delivered, outcomes.failed, outcomes.cancelled) == (
        letters.count("G"),
        letters.count("D"),
        0,
    )


@pytest.mark.parametrize("output", ["cpu", "gpu"])
@pytest.mark.parametrize("letter", sorted(FAILS))
def test_failed_job_returns_its_credits_at_once(
    make_executor: Factory, tmp_path: Path, letter: str, output: str
) -> None:
    lazy, _ = Corpus(tmp_path).job(letter, 0)
    executor = make_executor(gpu_bytes=GPU_CAP)
    results = executor.run([(_key(0, letter), lazy)], output=output, errors="deliver")
    item = next(results)
    _check_failure(item, 0, letter)
    assert credits_now(executor) == ZERO  # before the stream has even ended
    assert list(results) == []


@pytest.mark.parametrize("errors", [None, "raise"], ids=["default", "explicit-raise"])
@pytest.mark.parametrize("letter", sorted(FAILS))
def test_default_still_raises_at_the_first_failure(
    make_executor: Factory, tmp_path: Path, letter: str, errors: str | None
) -> None:
    corpus = Corpus(tmp_path)
    letters = f"G{letter}GG"
    pulled: list[str] = []

    def jobs() -> Iterator[tuple[str, Any]]:
        for index, letter_ in enumerate(letters):
            pulled.append(_key(index, letter_))
            yield _key(index, letter_), corpus.job(letter_, index)[0]

    executor = make_executor(gpu_bytes=GPU_CAP)
    kwargs = {} if errors is None else {"errors": errors}
    results = executor.run(jobs(), **kwargs)
    cls, kind, stage = FAILS[letter]
    delivered = []

    def consume() -> None:
        for item in results:
            assert isinstance(item, BatchResult)
            delivered.append(item.input_key)

    with pytest.raises(cls) as info:
        consume()
    assert (info.value.job_id, info.value.input_key, info.value.kind, info.value.stage) == (
        1,
        _key(1, letter),
        kind,
        stage,
    )
    rest = [item.input_key for item in results]
    if letter == "D":  # job-scoped: the stream keeps every other job
        assert sorted(delivered + rest) == [_key(i, "G") for i in (0, 2, 3)]
    else:  # an admission error stops reading later inputs
        assert delivered + rest == [_key(0, "G")]
        assert pulled == [_key(0, "G"), _key(1, letter)]
    assert credits_now(executor) == ZERO


READ_AHEAD = {  # name: (first letters, then this cycle forever, reads allowed beyond deliveries)
    "only-fails": ("", "U", 1),
    "fails-behind-a-job": ("G", "U", 9),
    "alternating": ("", "GU", 9),
}


@pytest.mark.parametrize("case", sorted(READ_AHEAD))
def test_failures_do_not_read_ahead(make_executor: Factory, tmp_path: Path, case: str) -> None:
    head, cycle, slack = READ_AHEAD[case]
    corpus = Corpus(tmp_path)
    pulled: list[int] = []

    def letter(index: int) -> str:
        return head[index] if index < len(head) else cycle[(index - len(head)) % len(cycle)]

    def jobs() -> Iterator[tuple[int, Any]]:
        for index in range(2_000):
            pulled.append(index)
            yield index, (_inverted(index) if letter(index) == "G" else corpus.job("U", index)[0])

    max_jobs = 4
    executor = make_executor(max_jobs=max_jobs)
    delivered = 0
    with executor.run(jobs(), errors="deliver") as results:
        for item in results:
            assert item.job_id == delivered
            assert item.ok is (letter(delivered) == "G")
            delivered += 1
            # A failure that can be delivered is, before more is read; otherwise admitted
            # jobs (max_jobs), waiting failures (max_jobs) and one lookahead bound the reads.
            assert len(pulled) <= delivered + slack
            if delivered == 40:
                break
    assert slack <= 2 * max_jobs + 1


def _inverted(value: int) -> Any:
    return ImageOps.invert(Image.new("L", (5, 4), value % 256))


def test_join_delivers_decode_failures_of_submitted_jobs(
    make_executor: Factory, tmp_path: Path
) -> None:
    corpus = Corpus(tmp_path)
    executor = make_executor()
    with pytest.raises(BatchUnsupported):  # submit() raises admission errors itself
        executor.submit(corpus.job("U", 0)[0])
    lazies = [_inverted(1), corpus.job("D", 0)[0], _inverted(3), corpus.job("D", 0)[0]]
    ids = [executor.submit(lazy) for lazy in lazies]
    items = list(executor.join(errors="deliver"))
    assert [item.job_id for item in items] == ids
    assert [item.ok for item in items] == [True, False, True, False]
    for item in items[1::2]:
        assert isinstance(item, BatchFailure)
        assert (item.input_key, item.kind, item.stage) == (None, "Decode", "decode")
        assert isinstance(item.error, BatchDecodeError)
    assert [item.image.getpixel((0, 0)) for item in items[::2]] == [254, 252]
    assert credits_now(executor) == ZERO


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_deliver_still_raises_an_encode_failure(
    make_executor: Factory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, output: str
) -> None:
    # A job that fails to record its commands is a failure of the executor's GPU path, not of
    # the input: it raises (ExecutionError) and the stream goes on, as with errors="raise".
    lazies = [_inverted(10), _inverted(20), Corpus(tmp_path).job("D", 2)[0], _inverted(30)]
    broken = lazies[1].node
    encode = _stack._encode_dispatches

    def failing_encode(compute: Any, run: list[Any], current: list[Any]) -> int:
        if any(plan.root is broken for plan, _, _ in run):  # fault injection: recording fails
            raise RuntimeError("injected encode failure")
        return encode(compute, run, current)

    monkeypatch.setattr(_stack, "_encode_dispatches", failing_encode)
    executor = make_executor()
    results = executor.run(enumerate(lazies), output=output, errors="deliver")
    items: list[tuple[int, object]] = []
    raised: list[ExecutionError] = []
    while True:
        try:
            item = next(results)
        except StopIteration:
            break
        except ExecutionError as error:
            raised.append(error)
            continue
        if isinstance(item, BatchFailure):
            items.append((item.job_id, item.kind))
        else:
            image = item.image.download() if output == "gpu" else item.image
            items.append((item.job_id, image.getpixel((0, 0))))
            del image
        del item
    assert [(error.job_id, error.stage) for error in raised] == [(1, "encode")]
    assert items == [(0, 245), (2, "Decode"), (3, 225)]
    gc.collect()
    assert credits_now(executor) == ZERO


@pytest.mark.parametrize("errors", ["ignore", "RAISE", "", None, True, 1], ids=repr)
@pytest.mark.parametrize("call", ["run", "join"])
def test_invalid_errors_value_is_rejected(make_executor: Factory, call: str, errors: Any) -> None:
    started: list[bool] = []

    def jobs() -> Iterator[tuple[int, Any]]:
        started.append(True)
        yield 0, _inverted(1)

    executor = make_executor()

    def start() -> Any:
        if call == "run":
            return executor.run(jobs(), errors=errors)
        return executor.join(errors=errors)

    with pytest.raises(ValueError, match=r"why: errors must be 'raise'") as info:
        start()
    message = str(info.value)
    assert f"observed {errors!r}" in message
    assert "fix: " in message
    assert started == []  # nothing was read and no stream was opened
    (result,) = executor.run(jobs(), errors="deliver")
    assert result.ok
    assert result.image.getpixel((0, 0)) == 254


def test_failure_item_is_typed_and_immutable(make_executor: Factory, tmp_path: Path) -> None:
    executor = make_executor()
    (item,) = executor.run([("gif", Corpus(tmp_path).job("U", 0)[0])], errors="deliver")
    assert isinstance(item, BatchFailure)
    assert not isinstance(item, BatchResult)
    assert item._fields == ("job_id", "input_key", "error")
    job_id, key, error = item  # a named tuple, as pillow-rs's results are
    assert (job_id, key, error) == (item.job_id, "gif", item.error)
    assert item[2] is item.error
    assert not hasattr(item, "image")
    with pytest.raises(AttributeError, match=r"has no image.*check result\.ok") as info:
        _ = item.image  # type: ignore[attr-defined]
    assert "Unsupported at admission" in str(info.value)
    with pytest.raises(AttributeError, match="no attribute 'size'"):
        _ = item.size  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        item.job_id = 5  # type: ignore[misc]
    with pytest.raises(BatchUnsupported) as raised:
        raise item.error
    assert isinstance(raised.value, BatchError)
    assert raised.value is item.error


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_random_interrupt_soak_keeps_order(make_executor: Factory, tmp_path: Path) -> None:
    # SIGINTs from a timer thread and from trapped leaf decoders (see the interrupt tests)
    # land anywhere in next(): each item still comes once, in input order, and nothing leaks.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_soak(make_executor, tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)
        TRAPS.clear()
        gc.collect()


def _interrupt_soak(make_executor: Factory, tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("PGPU_INTERRUPT_SEED", "15")))
    corpus = Corpus(tmp_path)
    deadline = time.monotonic() + 15.0
    done = total_interrupts = 0
    for trial in range(40):
        if time.monotonic() > deadline:
            break
        inputs: list[tuple[int, Any, bytes | str]] = []  # key, graph, pixels or failure kind
        for index in range(rng.randint(6, 24)):
            roll = rng.random()
            if roll < 0.15:
                size = (rng.randint(8, 64), rng.randint(8, 64))
                path = _trap_file(tmp_path, f"t{trial}-{index}", size, traps=rng.randint(0, 2))
                graph = ImageOps.invert(Image.open(path))
                inputs.append((index, graph, _expected_trap(path, size)))
            elif roll < 0.45:
                letter = rng.choice("UD")
                inputs.append((index, corpus.job(letter, index)[0], FAILS[letter][1]))
            else:
                value = rng.randrange(256)
                inputs.append((index, _inverted(value), bytes([255 - value]) * 20))
        executor = make_executor(max_jobs=rng.choice((2, 4, 8)), max_in_flight=rng.choice((1, 2)))
        results = executor.run(((key, graph) for key, graph, _ in inputs), errors="deliver")
        received: list[int] = []
        interrupts = good = 0
        close_after = rng.randint(1, 4) if rng.random() < 0.3 else None
        while True:
            delay = rng.uniform(0.0, 0.03) if rng.random() < 0.35 else None
            try:
                item, interrupted = _next_interrupted(results, delay)
            except StopIteration:
                break
            interrupts += interrupted
            if item is not None:
                key = item.input_key
                assert isinstance(key, int)
                assert not received or key > received[-1], f"trial {trial}: {key} after {received}"
                received.append(key)
                want = inputs[key][2]
                if isinstance(item, BatchFailure):
                    assert item.kind == want, f"trial {trial}: key {key}"
                else:
                    assert item.image.tobytes() == want, f"trial {trial}: key {key}"
                    good += 1
            if close_after is not None and interrupts >= close_after:
                break
        results.close()
        outcomes = executor._outcomes
        assert credits_now(executor) == ZERO, f"trial {trial}"
        submitted = executor.stats["submitted_jobs"]
        assert submitted == outcomes.delivered + outcomes.failed + outcomes.cancelled, trial
        # Only an item an interrupt took on its way out of next() may be missing.
        assert 0 <= outcomes.delivered - good <= interrupts, trial
        done += 1
        total_interrupts += interrupts
    assert done >= 5, f"only {done} trials fit in the time box"
    assert total_interrupts > 0  # the soak interrupted something
    print(f"deliver interrupt soak: {done} trials, {total_interrupts} interrupts")


@pytest.mark.parametrize("errors", ["deliver", "raise"])
def test_a_planner_failure_is_its_job_s_refusal_not_the_run_s(
    monkeypatch: pytest.MonkeyPatch, errors: str
) -> None:
    """An exception the planner was never meant to raise (a bug a hostile file's graph meets)
    refuses that job, named as a bug, with the exception as its cause; the jobs around it are
    delivered (it ended the run before, and the admitted jobs before it were lost)."""
    sources = [make_image("L", (8, 8), seed) for seed in range(3)]
    graphs = [ImageOps.mirror(Image.from_pil(source)) for source in sources]
    planned = executor_module.plan_cached

    def plan(node: Any, **options: Any) -> Any:
        if node is graphs[1].node:
            raise RuntimeError("an unexpected state")
        return planned(node, **options)

    monkeypatch.setattr(executor_module, "plan_cached", plan)
    jobs = list(enumerate(graphs))
    with GpuBatchExecutor() as executor:
        if errors == "raise":  # raised as any refusal at admission is
            with executor.run(jobs) as stream:
                with pytest.raises(BatchUnsupported, match="a pillow-gpu bug") as raised:
                    list(stream)
                assert isinstance(raised.value.__cause__, RuntimeError)
                assert raised.value.input_key == 1
                delivered = list(stream)  # the job admitted before it is not lost
            assert [result.input_key for result in delivered] == [0]
            return
        with executor.run(jobs, errors="deliver") as stream:
            found = {result.input_key: result for result in stream}
    assert found[1].kind == "Unsupported"
    assert "an unexpected state" in str(found[1].error)
    for key in (0, 2):
        assert_image_equal(found[key].image, PILImageOps.mirror(sources[key]))
