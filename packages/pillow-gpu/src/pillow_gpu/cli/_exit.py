"""How a ``pillow-gpu apply`` run ends: its exit statuses, and the signals that stop it.

SIGINT (Ctrl-C), SIGTERM (``kill``, ``timeout``, ``docker stop``) and SIGHUP (the terminal
closed) ask a run to stop once the files being written are complete (:class:`Interrupt`); a
second one stops it at once. Each ends the run with its own exit status.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

__all__ = [
    "EXIT_FAILED",
    "EXIT_HANGUP",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STATUSES",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "Interrupt",
]

#: Every input was written (by the GPU, or by the CPU fallback with ``--cpu-fallback``).
EXIT_OK = 0
#: At least one input was refused by the GPU and not written, or failed (each is reported on
#: stderr), or a folder held no image file.
EXIT_FAILED = 1
#: A usage error: an invalid or refused chain, option or executor setting; nothing was read.
EXIT_USAGE = 2
#: Stopped by SIGHUP (the terminal closed); the outputs written so far are complete.
EXIT_HANGUP = 129
#: Interrupted by SIGINT (Ctrl-C); the outputs written so far are complete.
EXIT_INTERRUPTED = 130
#: Stopped by SIGTERM (``kill``, ``timeout``, ``docker stop``); the outputs written so far are
#: complete.
EXIT_TERMINATED = 143

#: The exit statuses as ``--help`` and the README list them.
EXIT_STATUSES = (
    (EXIT_OK, "every input was written (on the GPU, or by the CPU fallback with --cpu-fallback)"),
    (
        EXIT_FAILED,
        "an input was refused by the GPU (not written) or failed, each reported on "
        "stderr; or a folder held no image",
    ),
    (
        EXIT_USAGE,
        "invalid chain, option or executor setting, or a chain the GPU refuses (nothing read)",
    ),
    (
        EXIT_HANGUP,
        "stopped by SIGHUP (the terminal closed); the outputs written so far are complete",
    ),
    (EXIT_INTERRUPTED, "interrupted by SIGINT/Ctrl-C; the outputs written so far are complete"),
    (
        EXIT_TERMINATED,
        "stopped by SIGTERM (kill, timeout, docker stop); the outputs written so far are complete",
    ),
)

#: The signals that stop a run as Ctrl-C does, and the exit status each ends it with (SIGHUP
#: where the platform has it).
_STOP_SIGNALS = {signal.SIGINT: EXIT_INTERRUPTED, signal.SIGTERM: EXIT_TERMINATED} | (
    {signal.SIGHUP: EXIT_HANGUP} if hasattr(signal, "SIGHUP") else {}
)


class Interrupt:
    """SIGINT, SIGTERM and SIGHUP handling: the first signal asks the run to stop, a second
    raises. A signal ignored when the run starts (``nohup``, ``trap '' TERM``) stays ignored.

    ``name`` is the first signal's (SIGINT where a second Ctrl-C came before any handler).
    """

    def __init__(self) -> None:
        self.requested = False
        self.name = "SIGINT"
        self._previous: dict[int, Any] = {}

    def __call__(self) -> bool:
        return self.requested

    @property
    def exit_status(self) -> int:
        """The exit status of a run this signal stopped."""
        return _STOP_SIGNALS[signal.Signals[self.name]]

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.name = signal.Signals(signum).name
        self.requested = True

    def __enter__(self) -> Interrupt:
        if threading.current_thread() is threading.main_thread():
            for number in _STOP_SIGNALS:
                if signal.getsignal(number) is not signal.SIG_IGN:
                    self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous if previous is not None else signal.SIG_DFL)
        self._previous = {}
