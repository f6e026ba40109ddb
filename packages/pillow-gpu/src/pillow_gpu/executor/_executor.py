"""``GpuBatchExecutor``: bounded admission, grouped submissions, streamed results.

State is three FIFO queues of jobs: pending (admitted and charged, not submitted), in flight
(grouped into :class:`Submission` objects, at most ``max_in_flight``), and ready (completed,
undelivered); :class:`WorkQueues` (``_queues``) holds them and the steps that move jobs
between them. This module adds the public API, the one-driver rule, admission and the stream
driving. Only the driver (``submit``, ``join``/``run`` iteration, ``close``) moves work;
there is no background thread. Credits are taken at admission and returned in steps
(completion, delivery, arena drained, lease dropped) so they reach exactly zero again.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from threading import RLock, get_ident
from types import MappingProxyType, TracebackType
from typing import Any, Literal, TypeVar, cast, overload

from pillow_gpu._graph import Node
from pillow_gpu.errors import GpuError, Unsupported
from pillow_gpu.executor._credits import Credits
from pillow_gpu.executor._errors import (
    BatchDecodeError,
    BatchError,
    BatchLimit,
    BatchUnsupported,
    ExecutionError,
    QueueFull,
    ResultBackpressure,
    StateError,
    for_job,
)
from pillow_gpu.executor._fence import check_wgpu_internals, device_lost
from pillow_gpu.executor._identity import JobIds, job_pair, validate_key
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._metadata import snapshot_info
from pillow_gpu.executor._prefetch import decode_threads as checked_decode_threads
from pillow_gpu.executor._queues import WorkQueues
from pillow_gpu.executor._results import ERRORS, BatchFailure, BatchResult, Results, Stream
from pillow_gpu.executor._submission import MAX_SUBMISSION_OPS
from pillow_gpu.gpu._device import forked_device_error, get_device
from pillow_gpu.gpu._plan_cache import plan_cached
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK

__all__ = ["GpuBatchExecutor"]

_T = TypeVar("_T")

_OUTPUTS = ("cpu", "gpu")

#: Shader work (:mod:`pillow_gpu.gpu._work` units) that starts a submission before
#: ``max_jobs // max_in_flight`` jobs wait: about 50-80 ms of kernels on lavapipe (2 cores), so
#: a batch of large images (two 1024x1024 RGB medians, eight 512x512 RGB blurs) is submitted
#: in parts and later jobs are planned and uploaded while the GPU runs the first ones, while
#: small images still go in submissions of up to ``max_jobs // max_in_flight`` jobs (every
#: submission costs the driving thread its own encoding, submit and map).
LAUNCH_WORK = 1 << 26

#: Job errors that ``errors="deliver"`` turns into :class:`BatchFailure` items.
_DELIVERED = (BatchUnsupported, BatchLimit, BatchDecodeError)

_Jobs = Iterable[tuple[str | int, Any]]


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


def _errors_mode(errors: object) -> str:
    if errors not in ERRORS:
        msg = (
            "why: errors must be 'raise' (stop at the first failed job) or 'deliver' (yield "
            f"a BatchFailure in its place and go on); observed {errors!r}; fix: pick one"
        )
        raise ValueError(msg)
    return str(errors)


def _delivers(error: BatchError) -> bool:
    """True for a job's own failure that ``errors="deliver"`` yields instead of raising."""
    return isinstance(error, _DELIVERED) and error.job_id is not None


class GpuBatchExecutor(WorkQueues):
    """Schedules lazy pillow-gpu graphs on the shared GPU device within bounded credits.

    ``gpu_bytes``/``host_bytes`` cap conservative admission reservations, ``max_jobs`` caps
    pending + executing + undelivered jobs, ``max_in_flight`` caps outstanding submissions.
    ``queue=False`` completes one submission per job before ``submit()`` returns.
    ``submission_timeout`` (seconds) bounds each wait for GPU completion.
    ``max_submission_work`` bounds the shader work (``pillow_gpu.gpu._work`` units) of one
    submission: a graph above it is ``Unsupported``; raise it only on a fast GPU.
    ``decode_threads`` decode admitted jobs' files while earlier jobs run (default: one fewer
    than the usable CPUs, at most 8, and none on a CPU adapter; 0 decodes each file at its
    submission, in the calling thread).
    """

    def __init__(
        self,
        *,
        queue: bool = True,
        gpu_bytes: int = 1 << 30,
        host_bytes: int = 1 << 30,
        max_jobs: int = 64,
        max_in_flight: int = 2,
        submission_timeout: float = 60.0,
        max_submission_work: int = MAX_SUBMISSION_WORK,
        decode_threads: int | None = None,
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
        in_flight = _positive_int("max_in_flight", max_in_flight)
        credits = Credits(
            gpu_bytes=_positive_int("gpu_bytes", gpu_bytes),
            host_bytes=_positive_int("host_bytes", host_bytes),
            max_jobs=_positive_int("max_jobs", max_jobs),
        )
        work = _positive_int("max_submission_work", max_submission_work)
        shared = get_device()
        check_wgpu_internals(shared.device)
        cpu_adapter = shared.adapter_info.get("adapter_type") == "CPU"
        threads = checked_decode_threads(decode_threads, cpu_adapter=cpu_adapter)
        super().__init__(
            shared=shared,
            credits=credits,
            timeout=float(submission_timeout),
            max_in_flight=in_flight,
            max_submission_work=work,
            decode_threads=threads,
        )
        self.queue = queue
        self._ids = JobIds()
        # The driver: the thread inside submit/join/run/close/iteration (see _drive).
        self._busy = RLock()
        self._driver: int | None = None
        # Launch early only once this many jobs wait: submissions as large as the job credits
        # allow with max_in_flight of them out (small images pay per submission, not per job).
        self._batch_target = max(1, max_jobs // max_in_flight)
        # While open, the device keeps up to this executor's GPU budget of released slots for
        # its next submissions (gpu._slots); ended by close(), or marked ended when the executor
        # is collected (expire takes no lock: a collection may run inside the pool's lock).
        self._pool_token = shared.slots.widen(credits.caps.gpu_bytes)
        self._pool_widening = weakref.finalize(self, shared.slots.expire, self._pool_token)

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

    @overload
    def join(self, *, errors: Literal["raise"] = "raise") -> Results[BatchResult]: ...
    @overload
    def join(self, *, errors: str) -> Results[BatchResult | BatchFailure]: ...
    def join(self, *, errors: str = "raise") -> Results[Any]:
        """Return a stream of every submitted job's result; iteration drives the GPU work.

        ``errors`` is as for :meth:`run`; ``submit()`` itself still raises admission errors.
        """
        mode = _errors_mode(errors)
        return self._drive("join", self._start, "join", None, "cpu", mode)

    def _start(
        self, what: str, source: Iterator[Any] | None, output: str, errors: str
    ) -> Results[Any]:
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
        self._owner = stream = Stream(source, output, errors)
        return Results(self, stream)

    @overload
    def run(
        self, jobs: _Jobs, output: str = "cpu", *, errors: Literal["raise"] = "raise"
    ) -> Results[BatchResult]: ...
    @overload
    def run(
        self, jobs: _Jobs, output: str = "cpu", *, errors: str
    ) -> Results[BatchResult | BatchFailure]: ...
    def run(self, jobs: _Jobs, output: str = "cpu", *, errors: str = "raise") -> Results[Any]:
        """Stream ``(input_key, lazy_image)`` pairs through the executor, lazily.

        ``output="cpu"`` yields ``PIL.Image.Image`` results; ``output="gpu"`` yields
        :class:`GpuImage` handles that keep their reservation until released.
        ``errors="raise"`` (the default) raises a job's admission or decode error from
        ``next()`` and stops reading inputs at an admission error; ``errors="deliver"`` yields
        a :class:`BatchFailure` in that job's place, in input order, and keeps reading.
        """
        if output not in _OUTPUTS:
            msg = f"why: output must be 'cpu' or 'gpu'; observed {output!r}; fix: pick one"
            raise ValueError(msg)
        mode = _errors_mode(errors)
        return self._drive("run", self._start, "run", iter(jobs), output, mode)

    def close(self) -> None:
        """Cancel unsubmitted work, fence in-flight work, release every credit (idempotent).

        A close that was interrupted (KeyboardInterrupt while it waited for the GPU) finishes
        on the next call.
        """
        if self._closed and self._settled:
            return
        self._drive("close", self._cancel)
        if self._settled and self._pool_widening.detach() is not None:
            self._shared.slots.narrow(self._pool_token)

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
    @staticmethod
    def _refused(what: str) -> StateError:
        return StateError(
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
        if self._driver is not None:
            raise self._refused(what)
        with self._busy:
            if self._driver is not None:
                raise self._refused(what)
            self._driver = get_ident()
            try:
                return body(*args)
            finally:
                self._driver = None

    def _check_open(self) -> None:
        if self._shared.forked_from is not None:
            self._abandon_forked()
            raise forked_device_error(self._shared, "this executor", ExecutionError)
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
            info = snapshot_info(node.info)
            plan = plan_cached(
                node,
                limits=self._shared.limits,
                max_work=self.max_submission_work,
                metadata_nbytes=info.nbytes,
            )
        except GpuError as error:
            raise for_job(error, job_id, key) from error
        except MemoryError:
            raise
        except Exception as error:  # a planner bug on this graph: its job's refusal, not the run's
            refused = Unsupported(
                "the GPU planner failed on this graph (a pillow-gpu bug: please report it)",
                observed=f"{type(error).__name__}: {error}",
                fix="evaluate it with Pillow (to_pil(); --cpu-fallback with pillow-gpu apply)",
                stage="admission",
            )
            raise for_job(refused, job_id, key) from error
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
        self._prefetch.start(job)
        if not self.queue:
            self._launch()
            while self._in_flight:
                self._collect(block=True)

    def _launch_due(self) -> bool:
        """True once the pending jobs fill a submission: ``max_jobs // max_in_flight`` of them,
        or about :data:`LAUNCH_WORK` of shader work (estimated from the newest job, exact for a
        run of same-shaped jobs, in O(1) per admitted job)."""
        pending = self._pending
        if not pending:
            return False
        newest = pending[-1].plan
        return len(pending) >= self._batch_target or (
            newest is not None and len(pending) * newest.shader_work >= LAUNCH_WORK
        )

    def _fill(self, stream: Stream) -> None:
        """Pull inputs and admit them while credits allow (at most one item waits).

        Stops early once a launchable group (``_batch_target`` jobs, or :data:`LAUNCH_WORK`)
        waits while a submission slot is free, so the GPU starts on it while later inputs are
        still being planned.

        An ``Exception`` from the input iterator or from planning stops reading inputs. Any
        other ``BaseException`` (KeyboardInterrupt) keeps the stream resumable: an item whose
        planning was interrupted is planned again, and the iterator is pulled again (a
        generator interrupted in its own code has ended, which ends the inputs).

        With ``errors="deliver"`` a job's own admission error (``_delivers``) is kept for
        :meth:`_deferred` and reading goes on. It stops once that failure can be delivered
        (no older job is live) or ``max_jobs`` failures wait, so pulls stay bounded.
        """
        while stream.source is not None or stream.item is not None or stream.lookahead is not None:
            if (self._launch_due() and len(self._in_flight) < self.max_in_flight) or (
                stream.errors == "deliver" and len(self._errors) >= self._credits.caps.jobs
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
                    key, image = job_pair(stream.item)
                    job = self._prepare(image, validate_key(key), stream.output)
                except BatchError as error:
                    if stream.errors == "deliver" and _delivers(error):
                        error = error.with_traceback(None)  # pin no executor frames
                        # A plain store, then one C call: the input is dropped exactly when
                        # its failure is recorded.
                        stream.item = None
                        self._errors.append(error)
                        if self._oldest_live() is None:
                            return  # deliverable now: hand it over before reading on
                        continue
                    stream.item = None
                    stream.source = None  # an invalid input stops reading later inputs
                    raise
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
            self._prefetch.start(job)
            if not self.queue:
                self._launch()
                while self._in_flight:
                    self._collect(block=True)

    def _raise_deferred(self) -> None:
        if self._errors:
            raise self._errors.popleft()

    def _deferred(self, stream: Stream) -> BatchFailure | None:
        """Raise the next deferred job error, or deliver it in its turn (``errors="deliver"``).

        In deliver mode a job error of the kinds ``_delivers`` accepts becomes a
        :class:`BatchFailure` once no older job is live, so results and failures come in job-ID
        (input) order; until then it waits (None). Other job errors raise as in the default.
        """
        errors = self._errors
        if not errors:
            return None
        if stream.errors != "deliver":
            raise errors.popleft()
        for index, error in enumerate(errors):
            if not _delivers(error):
                del errors[index]
                raise error
        index = min(range(len(errors)), key=lambda i: errors[i].job_id or 0)
        error = errors[index]
        assert error.job_id is not None  # _delivers() checked it
        oldest = self._oldest_live()
        if oldest is not None and oldest < error.job_id:
            return None
        key = cast("str | int | None", error.input_key)  # a job's validated key
        failure = BatchFailure(job_id=error.job_id, input_key=key, error=error)
        del errors[index]  # one C call: the failure is handed over exactly when it leaves
        return failure

    def _advance(self, stream: Stream) -> BatchResult | BatchFailure:
        """Produce the next result of ``stream`` (called by ``Results.__next__``).

        After an interrupt (KeyboardInterrupt or any BaseException raised inside this call)
        the stream stays open and consistent: calling it again resumes, and every admitted job
        is still delivered once (or cancelled by close()).
        """
        return self._drive("iteration", self._next, stream)

    def _next(self, stream: Stream) -> BatchResult | BatchFailure:
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
        if self._launching is not None:
            self._settle_launch(restore=True)  # finish a launch an interrupt cut short
        while True:
            progress = (self._counters.submitted_jobs, self._counters.submissions)
            failure = self._deferred(stream) if self._errors else None
            if failure is not None:
                return failure
            if self._ready and self._ready[0][1].result is not None:
                return self._deliver()  # a delivery an interrupt cut short
            self._collect(block=False)
            self._fill(stream)
            more = (
                stream.source is not None or stream.item is not None or stream.lookahead is not None
            )
            if self._pending and (
                not self._in_flight or not self._ready or not more or self._launch_due()
            ):
                self._launch()
            failure = self._deferred(stream) if self._errors else None
            if failure is not None:
                return failure
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
