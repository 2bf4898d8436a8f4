"""BatchLogger: log predictions from a model's hot path without ever blocking it.

    logger = vigil.BatchLogger(client, model.id)
    logger.log({"age": 42}, {"prediction": 1}, latency_ms=12.5)   # returns at once
    ...
    logger.close()   # or leave it to the interpreter's exit

Predictions wait in a bounded buffer; background threads send them in batches of up to
``batch_size`` once that many wait or ``flush_interval`` seconds passed. A batch that fails
(no answer, 429, 5xx) is sent again with the same prediction ids, so the server keeps each
once. When the buffer is full, ``log`` drops the prediction and counts it in ``dropped``
rather than wait: the model's latency comes first.
"""
from __future__ import annotations

import atexit
import itertools
import logging
import threading
import time
import uuid
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any, Mapping

from . import errors
from ._rows import _clean
from .client import MAX_BATCH, Client

log = logging.getLogger("vigil")

try:  # orjson encodes a batch several times faster than json; optional.
    import orjson as _orjson

    def _encode(body: Any) -> bytes:
        return _orjson.dumps(body)
except ImportError:  # pragma: no cover - exercised where orjson is absent
    import json as _json

    def _encode(body: Any) -> bytes:
        return _json.dumps(body, separators=(",", ":"), allow_nan=False).encode()


_PLAIN = (int, str, bool)


def _plain(m: Mapping[str, Any]) -> dict[str, Any]:
    """m as JSON-ready values: as it is when every value is a plain int, str, bool or finite float."""
    for v in m.values():
        t = type(v)
        if t in _PLAIN or (t is float and v - v == 0):
            continue
        return {str(k): _clean(x) for k, x in m.items()}
    return dict(m)


def _close_at_exit(ref: weakref.ReferenceType[BatchLogger]) -> None:
    logger = ref()
    if logger is not None:
        logger.close()


@dataclass
class LoggerStats:
    """Counts since the logger started."""

    logged: int = 0  # accepted by the server
    refused: int = 0  # answered as invalid, item by item (422 in a batch)
    dropped: int = 0  # not kept: the buffer was full, or retries ran out


class BatchLogger:
    """A background, batching, retrying logger of one model's predictions."""

    def __init__(self, client: Client, model_id: str, *, batch_size: int = MAX_BATCH, flush_interval: float = 1.0,
                 max_buffer: int = 200_000, workers: int = 2, max_attempts: int = 8) -> None:
        self._client, self._model = client, model_id
        self._batch = max(1, min(batch_size, MAX_BATCH))
        self._interval, self._max, self._attempts = flush_interval, max_buffer, max_attempts
        self._buf: deque[dict[str, Any]] = deque()
        self._cond = threading.Condition()
        self._inflight = 0
        self._closed = False
        # Ids: a random prefix of this logger and a counter (uuid4 per call costs more than the rest of log()).
        self._prefix = uuid.uuid4().hex[:16] + "-"
        self._seq = itertools.count()
        self.stats = LoggerStats()
        self._threads = [threading.Thread(target=self._run, name=f"vigil-logger-{i}", daemon=True) for i in range(max(1, workers))]
        for t in self._threads:
            t.start()
        atexit.register(_close_at_exit, weakref.ref(self))

    def log(self, input_data: Mapping[str, Any], output_data: Mapping[str, Any], *, prediction_id: str | None = None,
            latency_ms: float | None = None, metadata: Mapping[str, Any] | None = None, timestamp: str | None = None) -> str:
        """Queue one prediction and return its id at once (a new one unless given).

        The hot path takes no lock: a deque append is atomic, and a sender is
        woken only when a batch is full.
        """
        if self._closed:
            raise RuntimeError("the logger is closed")
        pid = prediction_id or f"{self._prefix}{next(self._seq)}"
        item: dict[str, Any] = {"prediction_id": pid, "input_data": _plain(input_data), "output_data": _plain(output_data)}
        if latency_ms is not None:
            item["latency_ms"] = float(latency_ms)
        if metadata is not None:
            item["metadata"] = _plain(metadata)
        if timestamp is not None:
            item["timestamp"] = timestamp
        buf = self._buf
        if len(buf) >= self._max:
            with self._cond:
                self.stats.dropped += 1
            return pid
        buf.append(item)
        if len(buf) % self._batch == 0:
            with self._cond:
                self._cond.notify()
        return pid

    @property
    def pending(self) -> int:
        """Predictions waiting in the buffer or in flight."""
        return len(self._buf) + self._inflight

    def flush(self, timeout: float | None = None) -> bool:
        """Send what waits now and wait until nothing is pending; False if timeout passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._cond.notify_all()
            while self._buf or self._inflight:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.05 if left is None else min(left, 0.05))
                self._cond.notify_all()
        return True

    def close(self, timeout: float | None = 30.0) -> None:
        """Flush and stop the threads; predictions still pending after timeout are dropped and counted."""
        with self._cond:
            if self._closed:
                return
        self.flush(timeout)
        with self._cond:
            self._closed = True
            left = len(self._buf)
            if left:
                self.stats.dropped += left
                self._buf.clear()
                log.warning("vigil: %d predictions not sent before close", left)
            self._cond.notify_all()
        for t in self._threads:
            t.join(timeout=5)

    def __enter__(self) -> BatchLogger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _take(self) -> list[dict[str, Any]] | None:
        with self._cond:
            if len(self._buf) < self._batch and not self._closed:
                self._cond.wait(self._interval)
            if not self._buf:
                return None if self._closed else []
            n = min(self._batch, len(self._buf))
            batch = [self._buf.popleft() for _ in range(n)]
            self._inflight += n
            return batch

    def _run(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            if batch:
                self._send(batch)

    def _send(self, batch: list[dict[str, Any]]) -> None:
        body = _encode({"model_id": self._model, "predictions": batch})
        logged = refused = 0
        for attempt in range(self._attempts):
            try:
                r = self._client._t.call("POST", "/predictions/log/batch", body=body, content_type="application/json",
                                         idempotent=True)
                logged, refused = int(r.get("logged", 0)), int(r.get("failed", 0))
                break
            except (errors.ConnectionError, errors.RateLimitError, errors.ServiceUnavailableError,
                    errors.InternalServerError) as e:
                wait = e.retry_after if e.retry_after is not None else min(0.25 * 2 ** attempt, 10.0)
                log.warning("vigil: batch of %d not logged yet (%s); retrying in %.2fs", len(batch), e.code, wait)
                time.sleep(wait)
            except errors.VigilError as e:  # refused whole: nothing to retry
                log.error("vigil: batch of %d refused: %s", len(batch), e)
                refused = len(batch)
                break
        with self._cond:
            self._inflight -= len(batch)
            self.stats.logged += logged
            self.stats.refused += refused
            self.stats.dropped += len(batch) - logged - refused
            self._cond.notify_all()
