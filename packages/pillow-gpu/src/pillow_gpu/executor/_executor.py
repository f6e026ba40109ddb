"""``GpuBatchExecutor``: bounded admission, grouped submissions, streamed results.

State is three FIFO queues of jobs: pending (admitted and charged, not submitted), in flight
(grouped into :class:`Submission` objects, at most ``max_in_flight``), and ready (completed,
undelivered). Only the driver (``submit``, ``join``/``run`` iteration, ``close``) moves work;
there is no background thread. Credits are taken at admission and returned in steps
(completion, delivery, arena drained, lease dropped) so they reach exactly zero again.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from threading import Lock
from types import MappingProxyType, TracebackType
from typing import Any

from pillow_gpu._graph import Node
from pillow_gpu.errors import GpuError
from pillow_gpu.executor._credits import Charge, Credits
from pillow_gpu.executor._errors import (
    BatchError,
    BatchLimit,
    ExecutionError,
    QueueFull,
    ResultBackpressure,
    StateError,
    for_job,
)
from pillow_gpu.executor._fence import check_wgpu_internals, device_lost
from pillow_gpu.executor._identity import JobIds, validate_key
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._metadata import snapshot_info
from pillow_gpu.executor._resident import GpuImage, ResidentLease
from pillow_gpu.executor._results import BatchResult, Results
from pillow_gpu.executor._stats import Counters
from pillow_gpu.executor._submission import MAX_SUBMISSION_OPS, Submission
from pillow_gpu.gpu._device import get_device
from pillow_gpu.gpu._planner import plan_graph
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK

__all__ = ["GpuBatchExecutor"]

_OUTPUTS = ("cpu", "gpu")


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        msg = (
            f"why: {name} must be an int; observed {type(value).__name__} {value!r}; "
            f"fix: pass {name} as a positive integer"
        )
        raise TypeError(msg)
    if value < 1:
        msg = f"why: {name} must be at least 1; observed {value}; fix: pass a positive {name}"
        raise ValueError(msg)
    return value


class GpuBatchExecutor:
    """Schedules lazy pillow-gpu graphs on the shared GPU device within bounded credits.

    ``gpu_bytes``/``host_bytes`` cap conservative admission reservations, ``max_jobs`` caps
    pending + executing + undelivered jobs, ``max_in_flight`` caps outstanding submissions.
    ``queue=False`` completes one submission per job before ``submit()`` returns.
    ``submission_timeout`` (seconds) bounds each wait for GPU completion.
    ``max_submission_work`` bounds the shader work (``pillow_gpu.gpu._work`` units) of one
    submission: a graph above it is ``Unsupported``; raise it only on a fast GPU.
    """

    def __init__(
        self,
        *,
        queue: bool = True,
        gpu_bytes: int = 512 << 20,
        host_bytes: int = 256 << 20,
        max_jobs: int = 64,
        max_in_flight: int = 2,
        submission_timeout: float = 60.0,
        max_submission_work: int = MAX_SUBMISSION_WORK,
    ) -> None:
        if not isinstance(queue, bool):
            msg = (
                f"why: queue must be a bool; observed {type(queue).__name__} {queue!r}; "
                "fix: pass queue=True (group jobs) or queue=False (submit each job at once)"
            )
            raise TypeError(msg)
        if isinstance(submission_timeout, bool) or not isinstance(submission_timeout, (int, float)):
            msg = (
                f"why: submission_timeout must be a number; observed {submission_timeout!r}; "
                "fix: pass seconds as a float"
            )
            raise TypeError(msg)
        if not submission_timeout > 0:
            msg = (
                "why: submission_timeout must be positive; "
                f"observed {submission_timeout}; fix: pass seconds > 0"
            )
            raise ValueError(msg)
        self.queue = queue
        self.max_in_flight = _positive_int("max_in_flight", max_in_flight)
        self._credits = Credits(
            gpu_bytes=_positive_int("gpu_bytes", gpu_bytes),
            host_bytes=_positive_int("host_bytes", host_bytes),
            max_jobs=_positive_int("max_jobs", max_jobs),
        )
        self._timeout = float(submission_timeout)
        self.max_submission_work = _positive_int("max_submission_work", max_submission_work)
        self._shared = get_device()
        check_wgpu_internals(self._shared.device)
        self._ids = JobIds()
        self._counters = Counters()
        self._pending: deque[Job] = deque()
        self._in_flight: deque[Submission] = deque()
        self._ready: deque[tuple[Submission, Job]] = deque()
        self._errors: deque[BatchError] = deque()
        self._busy = Lock()
        self._owner: weakref.ref[Results] | None = None
        self._closed = False
        self._failed: BatchError | None = None
        # Launch early only once this many jobs wait (keeps submissions grouped in steady state).
        self._batch_target = max(1, max_jobs // (2 * max_in_flight))

    # -- public API ---------------------------------------------------------------------------
    def submit(self, image: Any) -> int:
        """Admit one lazy image graph and return its job ID (no GPU work with ``queue=True``).

        Raises ``QueueFull`` when it does not fit beside live work (the ID is consumed).
        """
        with self._driving("submit"):
            self._check_free("submit")
            job = self._prepare(image, None, "cpu")
            if not self._credits.try_take(job.admitted):
                raise self._queue_full(job)
            self._admit(job)
            self._raise_deferred()
        return job.job_id

    def join(self) -> Results:
        """Return a stream of every submitted job's result; iteration drives the GPU work."""
        with self._driving("join"):
            self._check_free("join")
            return self._own(Results(self, None, "cpu"))

    def run(self, jobs: Iterable[tuple[str | int, Any]], output: str = "cpu") -> Results:
        """Stream ``(input_key, lazy_image)`` pairs through the executor, lazily.

        ``output="cpu"`` yields ``PIL.Image.Image`` results; ``output="gpu"`` yields
        :class:`GpuImage` handles that keep their reservation until released.
        """
        if output not in _OUTPUTS:
            msg = f"why: output must be 'cpu' or 'gpu'; observed {output!r}; fix: pick one"
            raise ValueError(msg)
        with self._driving("run"):
            self._check_free("run")
            return self._own(Results(self, iter(jobs), output))

    def close(self) -> None:
        """Cancel unsubmitted work, fence in-flight work, release every credit (idempotent)."""
        if self._closed:
            return
        with self._driving("close"):
            self._cancel()

    @property
    def closed(self) -> bool:
        """True once the executor has been closed or cancelled."""
        return self._closed

    @property
    def stats(self) -> MappingProxyType[str, int]:
        """Counters: credits charged now, live work, and cumulative totals."""
        charged = self._credits.charged
        values = {
            "gpu_bytes": charged.gpu_bytes,
            "host_bytes": charged.host_bytes,
            "live_jobs": charged.jobs,
            "in_flight": len(self._in_flight),
            **self._counters.as_dict(),
        }
        return MappingProxyType(values)

    def __enter__(self) -> GpuBatchExecutor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- ownership ----------------------------------------------------------------------------
    @contextmanager
    def _driving(self, what: str) -> Iterator[None]:
        if not self._busy.acquire(blocking=False):
            raise StateError(
                "one driver owns an executor; concurrent or recursive use is rejected",
                observed=f"{what} called while another submit/join/run/iteration is running",
                fix="drive the executor from one place; do not call it from the input producer",
                stage="state",
            )
        try:
            yield
        finally:
            self._busy.release()

    def _check_open(self) -> None:
        if self._failed is None and not self._closed and device_lost():
            lost = ExecutionError(
                "the GPU device was lost",
                observed="wgpu logged 'The WGPU device was lost'",
                fix="create a new executor in a new process; work is not replayed",
                stage="execution",
            )
            self._fail(lost)
            raise lost
        if self._failed is not None:
            raise StateError(
                "the executor failed and cannot run more work",
                observed=str(self._failed),
                fix="create a new GpuBatchExecutor",
                stage="state",
            ) from self._failed
        if self._closed:
            raise StateError(
                "the executor is closed",
                observed="a call after close() or after a Results stream was cancelled",
                fix="create a new GpuBatchExecutor",
                stage="state",
            )

    def _check_free(self, what: str) -> None:
        self._check_open()
        owner = self._owner() if self._owner is not None else None
        if owner is not None and not owner.finished:
            raise StateError(
                "an unfinished Results stream owns this executor",
                observed=f"{what} called while a join()/run() stream is open",
                fix="exhaust or close the open stream first",
                stage="state",
            )

    def _own(self, results: Results) -> Results:
        self._owner = weakref.ref(results)
        return results

    # -- admission ----------------------------------------------------------------------------
    def _prepare(self, image: Any, key: str | int | None, output: str) -> Job:
        node = getattr(image, "node", None)
        if not isinstance(node, Node):
            msg = (
                "why: the executor runs lazy pillow_gpu images; "
                f"observed {type(image).__module__}.{type(image).__qualname__}; "
                "fix: build the image with pillow_gpu.Image / ImageOps (or Image.from_pil)"
            )
            raise TypeError(msg)
        job_id = self._ids.take()
        try:
            plan = plan_graph(node, limits=self._shared.limits, max_work=self.max_submission_work)
            info = snapshot_info(node.info)
        except GpuError as error:
            raise for_job(error, job_id, key) from error
        job = Job(job_id=job_id, input_key=key, plan=plan, info=info, output=output)
        over = self._credits.exceeded_cap(job.admitted)
        if plan.dispatch_count > MAX_SUBMISSION_OPS:
            over = f"operations per submission ({plan.dispatch_count} > {MAX_SUBMISSION_OPS})"
        if over is not None:
            raise BatchLimit(
                "the job exceeds a hard cap, so it could never be admitted",
                observed=f"{over} for a {plan.mode} {plan.size[0]}x{plan.size[1]} graph",
                fix="raise the executor's cap or split the image into smaller graphs",
                stage="admission",
                job_id=job_id,
                input_key=key,
            )
        return job

    def _queue_full(self, job: Job) -> QueueFull:
        charged, caps = self._credits.charged, self._credits.caps
        return QueueFull(
            "the job does not fit beside live work",
            observed=f"needs {job.admitted}; charged {charged} of caps {caps}",
            fix="drain results with join() (or release resident outputs) and submit again",
            stage="admission",
            job_id=job.job_id,
            input_key=job.input_key,
        )

    def _admit(self, job: Job) -> None:
        """Queue a charged job; with ``queue=False`` complete its submission now."""
        self._pending.append(job)
        self._counters.submitted_jobs += 1
        if not self.queue:
            self._launch()
            while self._in_flight:
                self._collect(block=True)

    def _fill(self, stream: Results) -> None:
        """Pull inputs and admit them while credits allow (at most one item waits).

        Stops early once a launchable group (``_batch_target`` jobs) waits while a submission
        slot is free, so the GPU starts on it while later inputs are still being planned.
        """
        while stream.source is not None or stream.lookahead is not None:
            if (
                len(self._pending) >= self._batch_target
                and len(self._in_flight) < self.max_in_flight
            ):
                return
            if stream.lookahead is None:
                assert stream.source is not None
                try:
                    item = next(stream.source)
                except StopIteration:
                    stream.source = None
                    return
                except BaseException:
                    stream.source = None
                    raise
                try:
                    key, image = item
                    stream.lookahead = self._prepare(image, validate_key(key), stream.output)
                except BaseException:
                    stream.source = None  # an invalid input stops reading later inputs
                    raise
            job = stream.lookahead
            if not self._credits.try_take(job.admitted):
                return
            stream.lookahead = None
            self._admit(job)

    # -- execution ----------------------------------------------------------------------------
    def _launch(self) -> None:
        """Group pending jobs into submissions while fewer than ``max_in_flight`` are out.

        A submission is closed before the job that would take it past 256 dispatches or past
        ``max_submission_work`` (every admitted job fits on its own).
        """
        while self._pending and len(self._in_flight) < self.max_in_flight:
            group: list[Job] = []
            ops = work = 0
            while self._pending:
                job = self._pending[0]
                assert job.plan is not None
                count, cost = job.plan.dispatch_count, job.plan.shader_work
                if group and (
                    ops + count > MAX_SUBMISSION_OPS or work + cost > self.max_submission_work
                ):
                    break
                group.append(self._pending.popleft())
                ops += count
                work += cost
            submission = Submission(self._shared, timeout=self._timeout)
            try:
                failed = submission.launch(group, self._counters)
            except Exception as error:
                for job in group:
                    self._credits.give(job.admitted)
                failure = ExecutionError(
                    "queue.submit failed",
                    observed=f"{type(error).__name__}: {error}",
                    fix="the device is likely lost; create a new executor",
                    stage="submission",
                    job_id=group[0].job_id,
                    input_key=group[0].input_key,
                )
                self._fail(failure)
                raise failure from error
            for job, job_error in failed:
                self._credits.give(job.admitted)
                self._errors.append(job_error)
            if submission.jobs:
                self._in_flight.append(submission)

    def _collect(self, *, block: bool) -> None:
        """Retire completed submissions (waiting for the oldest one if ``block``)."""
        while self._in_flight and (block or self._in_flight[0].is_done()):
            submission = self._in_flight[0]
            try:
                submission.finish()
            except BatchError as error:
                first = submission.jobs[0]  # a representative job of the failed submission
                named = for_job(error, first.job_id, first.input_key)
                self._fail(named)
                raise named from error
            self._in_flight.popleft()
            for job in submission.jobs:
                self._credits.give(job.admitted - job.retained)
                self._ready.append((submission, job))
            block = False

    def _deliver(self, submission: Submission, job: Job) -> BatchResult:
        image: Any
        if job.output == "cpu":
            image, freed = submission.take_cpu(job, build=True)
            assert image is not None
            image.info.update(job.info.copy())
            self._counters.readback_bytes += job.terminal_nbytes
            self._credits.give(freed)
        else:
            resident, workspace = submission.take_resident(job)
            lease = ResidentLease(
                shared=self._shared,
                resident=resident,
                workspace=workspace,
                mode=job.mode,
                size=job.size,
                terminal_nbytes=job.terminal_nbytes,
                info=job.info,
                credits=self._credits,
                charge=job.retained - Charge(jobs=1),
                timeout=self._timeout,
            )
            self._credits.give(Charge(jobs=1))
            image = GpuImage(lease)
        return BatchResult(job_id=job.job_id, input_key=job.input_key, image=image)

    def _raise_deferred(self) -> None:
        if self._errors:
            raise self._errors.popleft()

    def _advance(self, stream: Results) -> BatchResult:
        """Produce the next result of ``stream`` (called by ``Results.__next__``)."""
        with self._driving("iteration"):
            self._check_open()
            while True:
                progress = (self._counters.submitted_jobs, self._counters.submissions)
                self._raise_deferred()
                self._collect(block=False)
                self._fill(stream)
                more = stream.source is not None or stream.lookahead is not None
                if self._pending and (
                    not self._in_flight
                    or not self._ready
                    or not more
                    or len(self._pending) >= self._batch_target
                ):
                    self._launch()
                self._raise_deferred()
                if self._ready:
                    return self._deliver(*self._ready.popleft())
                if self._in_flight:
                    moved = progress != (self._counters.submitted_jobs, self._counters.submissions)
                    if not (moved and more):  # keep planning while the GPU works, else wait
                        self._collect(block=True)
                    continue
                if self._pending:
                    continue
                if stream.lookahead is not None:
                    job = stream.lookahead
                    raise ResultBackpressure(
                        "caller-held resident outputs fill the executor's budget",
                        observed=f"the next input needs {job.admitted}; charged "
                        f"{self._credits.charged} of caps {self._credits.caps}; no work is live",
                        fix="drop GpuImage handles you no longer need, then call next() again",
                        stage="admission",
                        job_id=job.job_id,
                        input_key=job.input_key,
                    )
                stream.finished = True
                self._owner = None
                raise StopIteration

    # -- cancellation and failure -------------------------------------------------------------
    def _cancel_stream(self, stream: Results) -> None:
        owner = self._owner() if self._owner is not None else None
        if owner is stream and not self._closed:
            with self._driving("Results.close"):
                self._cancel()

    def _cancel(self) -> None:
        """Drop pending work, fence in-flight submissions, discard undelivered results."""
        self._closed = True
        owner = self._owner() if self._owner is not None else None
        if owner is not None:
            owner.finished = True
            owner.lookahead = None
        self._owner = None
        for job in self._pending:
            job.release_plan()
            self._credits.give(job.admitted)
        self._pending.clear()
        failure: BatchError | None = None
        while self._in_flight:
            try:
                self._collect(block=True)
            except BatchError as error:
                failure = error
                break
        self._drop_ready()
        self._errors.clear()
        if failure is not None:
            raise failure

    def _drop_ready(self) -> None:
        for submission, job in self._ready:
            if job.output == "cpu":
                _, freed = submission.take_cpu(job, build=False)
            else:
                freed = submission.drop_gpu(job)
            self._credits.give(freed)
        self._ready.clear()

    def _fail(self, error: BatchError) -> None:
        """Mark the executor failed; release all credits without touching busy buffers."""
        self._failed = error
        self._closed = True
        for job in self._pending:
            self._credits.give(job.admitted)
        self._pending.clear()
        for submission in self._in_flight:
            submission.abandon()
            for job in submission.jobs:
                self._credits.give(job.admitted)
        self._in_flight.clear()
        self._drop_ready()
        owner = self._owner() if self._owner is not None else None
        if owner is not None:
            owner.finished = True
            owner.lookahead = None
        self._owner = None
