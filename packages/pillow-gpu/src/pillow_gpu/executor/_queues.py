"""The executor's work queues and the steps that move jobs through them.

:class:`WorkQueues` is the base of ``GpuBatchExecutor``: it owns the three FIFO queues of jobs
(pending, in flight as :class:`Submission` objects, ready) and the deferred job errors, and
does the steps that move jobs between them: grouping and launching submissions (settling a
launch an interrupt cut short), retiring completed submissions, delivering one result, and
cancelling or failing everything. The executor on top of it owns the public API, the driver
lock, admission and the stream driving (``_executor``).

Every queue is in admission (job-ID) order, so the oldest undelivered job is at the head of
the first non-empty queue of ready, in flight and pending.
"""

from __future__ import annotations

from collections import deque
from itertools import islice

from pillow_gpu.errors import GpuError
from pillow_gpu.executor._credits import ARMED, Charge, Credits
from pillow_gpu.executor._errors import BatchError, ExecutionError, for_job
from pillow_gpu.executor._interrupts import deferred_sigint
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._prefetch import DecodePrefetch
from pillow_gpu.executor._resident import GpuImage, ResidentLease
from pillow_gpu.executor._results import BatchResult, Stream
from pillow_gpu.executor._stats import Counters, Outcomes
from pillow_gpu.executor._submission import MAX_SUBMISSION_OPS, Submission
from pillow_gpu.gpu._device import SharedDevice, forked_device_error
from pillow_gpu.gpu._plan_cache import plan_cached

__all__ = ["WorkQueues"]


class WorkQueues:
    """Pending, in-flight and ready jobs of one executor, and the steps that move them."""

    def __init__(
        self,
        *,
        shared: SharedDevice,
        credits: Credits,
        timeout: float,
        max_in_flight: int,
        max_submission_work: int,
        decode_threads: int = 0,
    ) -> None:
        self._shared = shared
        self._prefetch = DecodePrefetch(decode_threads)
        self._credits = credits
        self._timeout = timeout
        self.max_in_flight = max_in_flight
        self.max_submission_work = max_submission_work
        self._counters = Counters()
        self._pending: deque[Job] = deque()
        self._in_flight: deque[Submission] = deque()
        self._ready: deque[tuple[Submission, Job]] = deque()
        #: Job errors not yet raised or delivered: a launch's decode/allocation failures and,
        #: for ``errors="deliver"``, admission failures waiting for their turn.
        self._errors: deque[BatchError] = deque()
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

    def _oldest_live(self) -> int | None:
        """The job ID of the oldest admitted, undelivered job (None when no job is live).

        A launch's jobs stay at the head of the pending queue until it is settled.
        """
        heads = []
        if self._ready:
            heads.append(self._ready[0][1].job_id)
        if self._in_flight:
            heads.append(self._in_flight[0].jobs[0].job_id)
        if self._pending:
            heads.append(self._pending[0].job_id)
        return min(heads, default=None)

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
            first = submission.group[0]  # settling empties the group
            self._launching = submission
            try:
                self._prefetch.settle(submission.group)
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
                    job_id=first.job_id,
                    input_key=first.input_key,
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
            job.plan = plan_cached(
                root,
                limits=self._shared.limits,
                max_work=self.max_submission_work,
                metadata_nbytes=job.info.nbytes,
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
                # The pairs name the submission: dropped here, it is freed by its reference
                # count once delivered, not left in a cycle for the garbage collector.
                submission.ready = []
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
                if job.info.value:
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
                    palette=job.palette,
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

    # -- cancellation and failure -------------------------------------------------------------
    def _cancel(self) -> None:
        """Drop pending work, fence in-flight submissions, discard undelivered results.

        An interrupt while fencing leaves the executor closed but not settled; the next
        ``close()`` continues from there. In a process forked after the device was created,
        nothing is fenced (it never completes there): the work is abandoned.
        """
        if self._shared.forked_from is not None:
            self._abandon_forked()
            return
        self._closed = True
        self._prefetch.close()
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

    def _abandon_forked(self) -> None:
        """In a process forked after the device was created: fail the executor, dropping its
        work without a GPU call (its buffers are the parent's; idempotent)."""
        if not self._settled:
            self._fail(forked_device_error(self._shared, "this executor", ExecutionError))

    def _drop_ready(self) -> None:
        """Discard undelivered results (the credits are settled afterwards)."""
        forked = self._shared.forked_from is not None
        arenas: dict[int, Submission] = {}
        for submission, job in self._ready:
            if forked:  # no GPU call: forget the buffers
                submission.abandon()
            elif job.output == "cpu":
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
        self._prefetch.close()
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
