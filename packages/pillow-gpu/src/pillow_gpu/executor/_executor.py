"""``GpuBatchExecutor``: bounded admission, grouped submissions, streamed results.

State is three FIFO queues of jobs: pending (admitted and charged, not submitted), in flight
(grouped into :class:`Submission` objects, at most ``max_in_flight``), and ready (completed,
undelivered). Only the driver (``submit``, ``join``/``run`` iteration, ``close``) moves work;
there is no background thread. Credits are taken at admission and returned in steps
(completion, delivery, arena drained, lease dropped) so they reach exactly zero again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from threading import RLock, get_ident
from types import MappingProxyType, TracebackType
from typing import Any, TypeVar

from pillow_gpu._graph import Node
from pillow_gpu.errors import GpuError
from pillow_gpu.executor._credits import ARMED, Charge, Credits
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
from pillow_gpu.executor._interrupts import deferred_sigint
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._metadata import snapshot_info
from pillow_gpu.executor._resident import GpuImage, ResidentLease
from pillow_gpu.executor._results import BatchResult, Results, Stream
from pillow_gpu.executor._stats import Counters, Outcomes
from pillow_gpu.executor._submission import MAX_SUBMISSION_OPS, Submission
from pillow_gpu.gpu._device import get_device
from pillow_gpu.gpu._planner import plan_graph
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK

__all__ = ["GpuBatchExecutor"]

_T = TypeVar("_T")

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
        # The driver: the thread inside submit/join/run/close/iteration (see _drive).
        self._busy = RLock()
        self._driver: int | None = None
        # The open stream. A strong reference to the stream's state, never to the Results
        # object, so that dropping the Results (even inside a reference cycle) still runs its
        # __del__, which cancels.
        self._owner: Stream | None = None
        # A launch in progress (see _settle_launch); set while its jobs are off every queue.
        self._launching: Submission | None = None
        self._outcomes = Outcomes()
        self._settled = False
        self._closed = False
        self._failed: BatchError | None = None
        # Launch early only once this many jobs wait (keeps submissions grouped in steady state).
        self._batch_target = max(1, max_jobs // (2 * max_in_flight))

    # -- public API ---------------------------------------------------------------------------
    def submit(self, image: Any) -> int:
        """Admit one lazy image graph and return its job ID (no GPU work with ``queue=True``).

        Raises ``QueueFull`` when it does not fit beside live work (the ID is consumed).
        """
        return self._drive("submit", self._submit, image)

    def _submit(self, image: Any) -> int:
        self._check_free("submit")
        job = self._prepare(image, None, "cpu")
        if not self._credits.try_take(job.admitted, job):
            raise self._queue_full(job)
        self._admit(job)
        self._raise_deferred()
        return job.job_id

    def join(self) -> Results:
        """Return a stream of every submitted job's result; iteration drives the GPU work."""
        return self._drive("join", self._start, "join", None, "cpu")

    def _start(self, what: str, source: Iterator[Any] | None, output: str) -> Results:
        self._check_free(what)
        if source is not None and (
            self._pending or self._in_flight or self._ready or self._launching is not None
        ):
            raise StateError(
                "submitted jobs are still undelivered",
                observed="run() called before join() delivered the jobs of submit()",
                fix="drain submitted jobs with join() before starting a run() stream",
                stage="state",
            )
        self._owner = stream = Stream(source, output)
        return Results(self, stream)

    def run(self, jobs: Iterable[tuple[str | int, Any]], output: str = "cpu") -> Results:
        """Stream ``(input_key, lazy_image)`` pairs through the executor, lazily.

        ``output="cpu"`` yields ``PIL.Image.Image`` results; ``output="gpu"`` yields
        :class:`GpuImage` handles that keep their reservation until released.
        """
        if output not in _OUTPUTS:
            msg = f"why: output must be 'cpu' or 'gpu'; observed {output!r}; fix: pick one"
            raise ValueError(msg)
        return self._drive("run", self._start, "run", iter(jobs), output)

    def close(self) -> None:
        """Cancel unsubmitted work, fence in-flight work, release every credit (idempotent).

        A close that was interrupted (KeyboardInterrupt while it waited for the GPU) finishes
        on the next call.
        """
        if self._closed and self._settled:
            return
        self._drive("close", self._cancel)

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
    def _refuse(self, what: str) -> None:
        if self._driver is not None:
            raise StateError(
                "one driver owns an executor; concurrent or recursive use is rejected",
                observed=f"{what} called while another submit/join/run/iteration is running",
                fix="drive the executor from one place; do not call it from the input producer",
                stage="state",
            )

    def _drive(self, what: str, body: Callable[..., _T], *args: Any) -> _T:
        """Run ``body`` as the executor's only driver; refuse concurrent or recursive use.

        Interrupt-safe: the lock is a ``with`` block (its C-level exit always runs) and the
        driver mark is cleared in a ``finally`` (plain stores), so no KeyboardInterrupt can
        leave the executor marked busy. Two threads racing past the first check serialize.
        """
        self._refuse(what)
        with self._busy:
            self._refuse(what)
            self._driver = get_ident()
            try:
                return body(*args)
            finally:
                self._driver = None

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
        owner = self._owner
        if owner is not None and owner.orphaned:  # dropped while the executor was busy
            self._cancel()
        self._check_open()
        if self._owner is not None:
            raise StateError(
                "an unfinished Results stream owns this executor",
                observed=f"{what} called while a join()/run() stream is open",
                fix="exhaust or close the open stream first",
                stage="state",
            )

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
        self._counters.submitted_jobs += 1
        self._pending.append(job)
        if not self.queue:
            self._launch()
            while self._in_flight:
                self._collect(block=True)

    def _fill(self, stream: Stream) -> None:
        """Pull inputs and admit them while credits allow (at most one item waits).

        Stops early once a launchable group (``_batch_target`` jobs) waits while a submission
        slot is free, so the GPU starts on it while later inputs are still being planned.

        An ``Exception`` from the input iterator or from planning stops reading inputs. Any
        other ``BaseException`` (KeyboardInterrupt) keeps the stream resumable: an item whose
        planning was interrupted is planned again, and the iterator is pulled again (a
        generator interrupted in its own code has ended, which ends the inputs).
        """
        while stream.source is not None or stream.item is not None or stream.lookahead is not None:
            if (
                len(self._pending) >= self._batch_target
                and len(self._in_flight) < self.max_in_flight
            ):
                return
            if stream.lookahead is None:
                if stream.item is None:
                    assert stream.source is not None
                    try:
                        stream.item = next(stream.source)
                    except StopIteration:
                        stream.source = None
                        return
                    except Exception:
                        stream.source = None
                        raise
                try:
                    key, image = stream.item
                    job = self._prepare(image, validate_key(key), stream.output)
                except Exception:
                    stream.item = None
                    stream.source = None  # an invalid input stops reading later inputs
                    raise
                # Two plain stores: no interrupt can land between them.
                stream.lookahead = job
                stream.item = None
            job = stream.lookahead
            if not job.charged and not self._credits.try_take(job.admitted, job):
                return
            # From here to the append nothing can be interrupted (stores, then one C call).
            self._counters.submitted_jobs += 1
            stream.lookahead = None
            self._pending.append(job)
            if not self.queue:
                self._launch()
                while self._in_flight:
                    self._collect(block=True)

    # -- execution ----------------------------------------------------------------------------
    def _group_size(self) -> int:
        """How many pending jobs the next submission takes.

        A submission is closed before the job that would take it past 256 dispatches or past
        ``max_submission_work`` (every admitted job fits on its own).
        """
        count = ops = work = 0
        for job in self._pending:
            assert job.plan is not None
            cost = job.plan.dispatch_count, job.plan.shader_work
            if count and (
                ops + cost[0] > MAX_SUBMISSION_OPS or work + cost[1] > self.max_submission_work
            ):
                break
            count += 1
            ops += cost[0]
            work += cost[1]
        return count

    def _launch(self) -> None:
        """Group pending jobs into submissions while fewer than ``max_in_flight`` are out.

        A launch's jobs stay at the head of the pending queue while they are allocated and
        encoded (``_launching`` names them). ``queue.submit`` and :meth:`_settle_launch_now`,
        which moves them in flight and reports the ones that failed, run as one step with
        SIGINT deferred. A launch interrupted before that step is settled by the next driver
        call (or right away): its jobs are planned again and stay pending.
        """
        self._settle_launch(restore=True)
        while self._pending and len(self._in_flight) < self.max_in_flight:
            submission = Submission(self._shared, timeout=self._timeout)
            submission.group = list(islice(self._pending, self._group_size()))
            self._launching = submission
            try:
                submission.launch()
                with deferred_sigint():
                    submission.submit(self._counters)
                    self._settle_launch_now(restore=True)
            except Exception as error:
                self._settle_launch(restore=False)
                failure = ExecutionError(
                    "queue.submit failed",
                    observed=f"{type(error).__name__}: {error}",
                    fix="the device is likely lost; create a new executor",
                    stage="submission",
                    job_id=submission.group[0].job_id,
                    input_key=submission.group[0].input_key,
                )
                self._fail(failure)
                raise failure from error
            except BaseException:
                self._settle_launch(restore=True)
                raise

    def _settle_launch(self, *, restore: bool) -> None:
        """Settle the launch in ``_launching``, if any, with SIGINT deferred."""
        if self._launching is not None:
            with deferred_sigint():
                self._settle_launch_now(restore=restore)

    def _settle_launch_now(self, *, restore: bool) -> None:
        """Take the launch's jobs off the pending queue and account for every one of them.

        Submitted jobs go in flight; failed ones are reported. Jobs of a launch that never
        reached ``queue.submit`` are planned again and put back (``restore``) or cancelled.
        """
        submission = self._launching
        if submission is None:
            return
        for _ in submission.group:
            self._pending.popleft()
        failed_ids = {id(job) for job, _ in submission.failed}
        for job, job_error in submission.failed:
            job.release_plan()
            self._credits.give(job.admitted)
            self._errors.append(job_error)
            self._outcomes.failed += 1
        submission.failed = []
        if submission.submitted:
            if submission.jobs:
                self._in_flight.append(submission)
        else:
            # Failed jobs are accounted for above (their plans are released): never replan them.
            jobs = [job for job in submission.rollback() if id(job) not in failed_ids]
            if restore:
                jobs = [job for job in jobs if self._replan(job)]
                self._pending.extendleft(reversed(jobs))
            else:
                for job in jobs:
                    job.release_plan()
                    self._credits.give(job.admitted)
                    self._outcomes.cancelled += 1
        submission.group = []
        self._launching = None

    def _replan(self, job: Job) -> bool:
        """Give a job whose launch was rolled back a fresh plan (False: it failed instead)."""
        assert job.plan is not None
        root = job.plan.root
        job.release_plan()
        try:
            job.plan = plan_graph(
                root, limits=self._shared.limits, max_work=self.max_submission_work
            )
        except GpuError as error:
            self._credits.give(job.admitted)
            self._errors.append(for_job(error, job.job_id, job.input_key))
            self._outcomes.failed += 1
            return False
        return True

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
            # Each step is marked in the same uninterruptible run that does it, so a retry
            # after an interrupt skips what was done.
            if not submission.credited:
                self._credits.give(submission.completion_freed, submission)
            if not submission.retired:
                submission.retired = True
                self._ready.extend(submission.ready)
            self._in_flight.popleft()
            block = False

    def _deliver(self) -> BatchResult:
        """Deliver the head of the ready queue; safe to call again after an interrupt.

        Building the result changes nothing, so an interrupt there leaves the job at the head.
        The result is then recorded on the job (and a resident lease armed) in one step, the
        credits are returned (``Job.credited``) and the job leaves the queue last. A retry
        finishes whatever step was cut off and returns the same result.
        """
        submission, job = self._ready[0]
        result = job.result
        if job.output == "cpu":
            if result is None:
                image = submission.build_cpu(job)
                image.info.update(job.info.copy())
                built = BatchResult(job_id=job.job_id, input_key=job.input_key, image=image)
                job.result = result = built
            if not job.credited:
                self._credits.give(submission.cpu_freed(job), job)
            submission.after_cpu(job)
        else:
            if result is None:
                record = self._credits.lease_record(job.retained - Charge(jobs=1))
                lease = ResidentLease(
                    shared=self._shared,
                    resident=job.resident,
                    workspace=job.workspace,
                    mode=job.mode,
                    size=job.size,
                    terminal_nbytes=job.terminal_nbytes,
                    info=job.info,
                    credits=self._credits,
                    record=record,
                    timeout=self._timeout,
                )
                built = BatchResult(
                    job_id=job.job_id, input_key=job.input_key, image=GpuImage(lease)
                )
                # Plain stores: the lease owns the buffers exactly when the result is recorded.
                job.result = result = built
                record.state = ARMED
                job.resident = job.workspace = None
            if not job.credited:
                self._credits.give(Charge(jobs=1), job)
        # Stores, then one C call: the job leaves the queue in one uninterruptible step.
        if job.output == "cpu":
            self._counters.readback_bytes += job.terminal_nbytes
        job.result = None
        self._outcomes.delivered += 1
        self._ready.popleft()
        return result

    def _raise_deferred(self) -> None:
        if self._errors:
            raise self._errors.popleft()

    def _advance(self, stream: Stream) -> BatchResult:
        """Produce the next result of ``stream`` (called by ``Results.__next__``).

        After an interrupt (KeyboardInterrupt or any BaseException raised inside this call)
        the stream stays open and consistent: calling it again resumes, and every admitted job
        is still delivered once (or cancelled by close()).
        """
        return self._drive("iteration", self._next, stream)

    def _next(self, stream: Stream) -> BatchResult:
        if stream.finished:
            raise StopIteration
        if stream is not self._owner:  # pragma: no cover - a finished stream is caught above
            raise StateError(
                "this Results stream does not own the executor",
                observed="next() on a stream that was cancelled",
                fix="start a new stream",
                stage="state",
            )
        self._check_open()
        self._settle_launch(restore=True)  # finish a launch an interrupt cut short
        while True:
            progress = (self._counters.submitted_jobs, self._counters.submissions)
            self._raise_deferred()
            if self._ready and self._ready[0][1].result is not None:
                return self._deliver()  # a delivery an interrupt cut short
            self._collect(block=False)
            self._fill(stream)
            more = (
                stream.source is not None or stream.item is not None or stream.lookahead is not None
            )
            if self._pending and (
                not self._in_flight
                or not self._ready
                or not more
                or len(self._pending) >= self._batch_target
            ):
                self._launch()
            self._raise_deferred()
            if self._ready:
                return self._deliver()
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
    def _close_stream(self, stream: Stream) -> None:
        """``Results.close()``: cancel the executor if ``stream`` is its open stream.

        Refused (``StateError``, nothing changed) while another call drives the executor, for
        example ``close()`` from a second thread during iteration.
        """
        if stream.finished or stream is not self._owner:
            return
        self._drive("Results.close", self._cancel_if_owner, stream)

    def _cancel_if_owner(self, stream: Stream) -> None:
        if not stream.finished and stream is self._owner:
            self._cancel()

    def _drop_stream(self, stream: Stream) -> None:
        """``Results.__del__``: cancel; if the executor is busy, leave that to its next call."""
        try:
            self._close_stream(stream)
        except StateError:
            stream.orphaned = True  # the next submit/join/run/close cancels
        except BatchError:
            pass  # a failure while fencing: the executor has failed and released everything

    def _cancel(self) -> None:
        """Drop pending work, fence in-flight submissions, discard undelivered results.

        An interrupt while fencing leaves the executor closed but not settled; the next
        ``close()`` continues from there.
        """
        self._closed = True
        owner = self._owner
        if owner is not None:
            owner.finished = True
            if owner.lookahead is not None and owner.lookahead.charged:
                self._outcomes.cancelled += 1
            owner.lookahead = None
            owner.item = None
            owner.source = None
        self._owner = None
        self._settle_launch(restore=False)
        with deferred_sigint():
            for job in self._pending:
                job.release_plan()
                self._outcomes.cancelled += 1
            self._pending.clear()
        failure: BatchError | None = None
        while self._in_flight:
            try:
                self._collect(block=True)
            except BatchError as error:
                failure = error
                break
        if failure is not None:
            raise failure  # _collect failed the executor, which settled every credit
        with deferred_sigint():
            self._drop_ready()
            self._errors.clear()
            self._credits.settle()
            self._settled = True

    def _drop_ready(self) -> None:
        """Discard undelivered results (the credits are settled afterwards)."""
        arenas: dict[int, Submission] = {}
        for submission, job in self._ready:
            if job.output == "cpu":
                arenas[id(submission)] = submission
            elif job.result is None:
                submission.drop_gpu(job)
            job.result = None  # an armed lease is dropped here and returns its own charge
            self._outcomes.cancelled += 1
        for submission in arenas.values():
            submission.destroy_arena()
        self._ready.clear()

    def _fail(self, error: BatchError) -> None:
        """Mark the executor failed; release all credits without touching busy buffers."""
        self._failed = error
        self._closed = True
        with deferred_sigint():
            self._settle_launch_now(restore=False)
            self._outcomes.cancelled += len(self._pending)
            self._pending.clear()
            for submission in self._in_flight:
                submission.abandon()
                if not submission.retired:  # else its jobs are counted in the ready queue
                    self._outcomes.cancelled += len(submission.jobs)
            self._in_flight.clear()
            self._drop_ready()
            owner = self._owner
            if owner is not None:
                owner.finished = True
                owner.lookahead = None
                owner.item = None
                owner.source = None
            self._owner = None
            self._credits.settle()
            self._settled = True
