"""A thread that samples something at a fixed interval while a `with` block runs.

    >>> class Counter(BackgroundSampler):
    ...     def __init__(self):
    ...         super().__init__(interval=0.001)
    ...         self.samples = 0
    ...     def sample(self):
    ...         self.samples += 1
    >>> import time
    >>> with Counter() as counter:
    ...     time.sleep(0.05)
    >>> counter.samples > 0
    True
"""

from __future__ import annotations

import threading


class BackgroundSampler:
    """Calls `sample()` every `interval` seconds in a daemon thread from entering the block to
    leaving it; a `sample()` that returns False stops the sampling early."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> bool | None:
        raise NotImplementedError

    def __enter__(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.sample() is False:
                return
            self._stop.wait(self.interval)
