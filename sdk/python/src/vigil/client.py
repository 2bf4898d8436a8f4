"""The client: ``vigil.Client`` (blocking) and ``vigil.AsyncClient``.

    c = vigil.Client("http://localhost:8080", username="admin", password="...")  # or api_key=...
    m = c.models.create(name="churn", model_type="classification", framework="sklearn", version="1.0.0")
    c.predictions.log_dataframe(m.id, df, output_columns=["prediction"], latency_column="latency_ms")
    c.predictions.stats(m.id).total_predictions

``c.api`` reaches every operation of the REST API (one attribute per tag, one method per
operation, generated from the OpenAPI document); ``models``, ``predictions`` and
``explanations`` are the typed shortcuts for the everyday ones.
"""
from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any, Mapping, Sequence

from . import _rows
from ._operations import AsyncOperations, Operations
from ._transport import AsyncTransport, SyncTransport, _seg
from .types import ExplainOptions, Explanation, LogResult, Model, Stats

#: The most predictions one batch call takes.
MAX_BATCH = 1000


def _batches(items: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    size = max(1, min(size, MAX_BATCH))
    return [items[i:i + size] for i in range(0, len(items), size)]


def _result(r: Mapping[str, Any], offset: int) -> LogResult:
    errs: list[Mapping[str, Any]] = [{**e, "index": int(e.get("index", 0)) + offset} for e in r.get("errors") or []]
    return LogResult(int(r.get("logged", 0)), int(r.get("failed", 0)), errs)


def _rows_of(data: Any, output_columns: Sequence[str], latency_column: str | None, id_column: str | None,
             metadata_columns: Sequence[str], timestamp_column: str | None) -> list[dict[str, Any]]:
    return list(_rows.predictions(_rows.records(data), output_columns, latency_column=latency_column,
                                  id_column=id_column, metadata_columns=metadata_columns,
                                  timestamp_column=timestamp_column))


def _model_body(name: str, model_type: str, framework: str, version: str, extra: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": name, "model_type": model_type, "framework": framework, "version": version, **extra}


def _explain_body(model_id: str, instance: Mapping[str, Any] | None, prediction_id: str | None, method: str | None,
                  use_cache: bool | None, background: Sequence[Mapping[str, Any]] | None,
                  options: ExplainOptions | None = None) -> dict[str, Any]:
    if (instance is None) == (prediction_id is None):
        raise ValueError("give instance=... or prediction_id=..., one of them")
    body: dict[str, Any] = {"model_id": model_id}
    if instance is not None:
        body["instance"] = dict(instance)
    if prediction_id is not None:
        body["prediction_id"] = prediction_id
    if method is not None:
        body["method"] = method
    if use_cache is not None:
        body["use_cache"] = use_cache
    if background is not None:
        body["background"] = [dict(r) for r in background]
    o = options or ExplainOptions()
    for name, value in (("num_features", o.num_features), ("num_samples", o.num_samples), ("seed", o.seed)):
        if value is not None:
            body[name] = value
    if o.config is not None:
        body["config"] = dict(o.config)
    return body


def _explanations(r: Any) -> list[Explanation]:
    """The explanations of an answer: a list, a page of them, or one."""
    if isinstance(r, dict):
        r = r["explanations"] if "explanations" in r else [r]
    return [Explanation.from_json(e) for e in r]


class Models:
    """Registered models."""

    def __init__(self, t: SyncTransport) -> None:
        self._t = t

    def create(self, *, name: str, model_type: str, framework: str, version: str, **extra: Any) -> Model:
        """Register a model version (extra fields as the API names them: description, features, tags, ...)."""
        return Model.from_json(self._t.call("POST", "/models", body=_model_body(name, model_type, framework, version, extra)))

    def get(self, model_id: str) -> Model:
        """One model version by id."""
        return Model.from_json(self._t.call("GET", f"/models/{_seg(model_id)}"))

    def list(self, **query: Any) -> list[Model]:
        """The organization's models (filters as the API names them: status, model_type, search, ...)."""
        return [Model.from_json(m) for m in self._t.call("GET", "/models", query=query)]


class Predictions:
    """Logging predictions and reading them back."""

    def __init__(self, t: SyncTransport) -> None:
        self._t = t

    def log(self, model_id: str, input_data: Mapping[str, Any], output_data: Mapping[str, Any], **fields: Any) -> Any:
        """Log one prediction (fields: prediction_id, latency_ms, metadata, timestamp); retried safely when it has an id."""
        body = {"model_id": model_id, "input_data": dict(input_data), "output_data": dict(output_data), **fields}
        return self._t.call("POST", "/predictions/log", body=body, idempotent="prediction_id" in fields)

    def log_batch(self, model_id: str, predictions: Sequence[Mapping[str, Any]], *, batch_size: int = MAX_BATCH) -> LogResult:
        """Log predictions in calls of up to 1000; items without a prediction_id get one, so retries are safe."""
        items = [dict(p) for p in predictions]
        for p in items:
            p.setdefault("prediction_id", str(uuid.uuid4()))
        total, offset = LogResult(0, 0), 0
        for batch in _batches(items, batch_size):
            r = self._t.call("POST", "/predictions/log/batch", body={"model_id": model_id, "predictions": batch}, idempotent=True)
            total, offset = total + _result(r, offset), offset + len(batch)
        return total

    def log_dataframe(self, model_id: str, data: Any, *, output_columns: Sequence[str], latency_column: str | None = None,
                      id_column: str | None = None, metadata_columns: Sequence[str] = (), timestamp_column: str | None = None,
                      batch_size: int = MAX_BATCH) -> LogResult:
        """Log each row of a pandas DataFrame or Arrow table: output_columns are the output, the other
        columns the input (but the latency, id, metadata and timestamp columns named)."""
        rows = _rows_of(data, output_columns, latency_column, id_column, metadata_columns, timestamp_column)
        return self.log_batch(model_id, rows, batch_size=batch_size)

    log_arrow = log_dataframe

    def stats(self, model_id: str, *, start_time: str | None = None, end_time: str | None = None) -> Stats:
        """The model's statistics (the last 24 hours unless start_time/end_time say otherwise)."""
        return Stats.from_json(self._t.call("GET", f"/predictions/models/{_seg(model_id)}/stats",
                                            query={"start_time": start_time, "end_time": end_time}))

    def query(self, model_id: str, **filters: Any) -> Any:
        """Logged predictions of the model (filters and paging as POST /predictions/query names them)."""
        return self._t.call("POST", "/predictions/query", body={"model_id": model_id, **filters})


class Explanations:
    """Explanations (SHAP, LIME) of instances and logged predictions."""

    def __init__(self, t: SyncTransport) -> None:
        self._t = t

    def generate(self, model_id: str, *, instance: Mapping[str, Any] | None = None, prediction_id: str | None = None,
                 method: str | None = None, use_cache: bool | None = None,
                 background: Sequence[Mapping[str, Any]] | None = None,
                 options: ExplainOptions | None = None) -> Explanation:
        """Start an explanation (202); poll it with get or wait.

        method: shap, shap_kernel or lime. background: reference rows (up to 200). options: num_features,
        num_samples, seed, config.
        """
        body = _explain_body(model_id, instance, prediction_id, method, use_cache, background, options)
        r = self._t.call("POST", "/explanations/generate", body=body)
        return Explanation.from_json(r)

    def get(self, explanation_id: str) -> Explanation:
        """An explanation as it stands."""
        return Explanation.from_json(self._t.call("GET", f"/explanations/{_seg(explanation_id)}"))

    def wait(self, explanation_id: str, *, timeout: float = 120.0, interval: float = 0.2) -> Explanation:
        """Poll until the explanation is completed, failed or cancelled (TimeoutError after timeout seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            e = self.get(explanation_id)
            if e.done:
                return e
            if time.monotonic() > deadline:
                raise TimeoutError(f"explanation {explanation_id} still {e.status} after {timeout}s")
            time.sleep(interval)

    def explain(self, model_id: str, *, instance: Mapping[str, Any] | None = None, prediction_id: str | None = None,
                method: str | None = None, background: Sequence[Mapping[str, Any]] | None = None,
                options: ExplainOptions | None = None, timeout: float = 120.0) -> Explanation:
        """Generate and wait: the finished explanation."""
        e = self.generate(model_id, instance=instance, prediction_id=prediction_id, method=method, background=background,
                          options=options)
        return self.wait(e.id, timeout=timeout)

    def by_prediction(self, prediction_id: str) -> list[Explanation]:
        """The explanations of a logged prediction."""
        return _explanations(self._t.call("GET", f"/explanations/by-prediction/{_seg(prediction_id)}"))

    def list(self, model_id: str, **query: Any) -> Any:
        """A model's explanations (method, status, limit, offset)."""
        return self._t.call("GET", "/explanations", query={"model_id": model_id, **query})

    def cancel(self, explanation_id: str) -> Explanation:
        """Cancel a pending explanation."""
        return Explanation.from_json(self._t.call("POST", f"/explanations/{_seg(explanation_id)}/cancel"))

    def stats(self, model_id: str) -> Any:
        """Counts and timings of a model's explanations."""
        return self._t.call("GET", "/explanations/stats", query={"model_id": model_id})

    def config(self, model_id: str) -> Any:
        """A model's explanation configuration."""
        return self._t.call("GET", f"/explanations/config/{_seg(model_id)}")

    def configure(self, model_id: str, **settings: Any) -> Any:
        """Change a model's explanation configuration (enabled, default_method, auto_explain, cache_enabled, cache_ttl_hours)."""
        return self._t.call("PUT", f"/explanations/config/{_seg(model_id)}", body=settings)

    def set_artifact(self, model_id: str, artifact: Mapping[str, Any]) -> Any:
        """Upload the model's artifact for exact explanations (linear, xgboost_json, lightgbm_text, sklearn_json)."""
        return self._t.call("PUT", f"/models/{_seg(model_id)}/artifact", body=dict(artifact))

    def importance(self, model_id: str, **query: Any) -> Any:
        """Global feature importance of a model: model_id, method, feature_importance, calculated_at (query: method)."""
        return self._t.call("GET", f"/explanations/importance/{_seg(model_id)}", query=query)


class Client:
    """A blocking client of one Vigil server; close it (or use ``with``) to free its connections."""

    def __init__(self, url: str, *, api_key: str | None = None, username: str | None = None, password: str | None = None,
                 timeout: float = 30.0, max_retries: int = 3) -> None:
        self._t = SyncTransport(url, api_key=api_key, username=username, password=password, timeout=timeout,
                                max_retries=max_retries)
        self.api = Operations(self._t)
        self.models = Models(self._t)
        self.predictions = Predictions(self._t)
        self.explanations = Explanations(self._t)

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        """Any call by path (under /api/v1), decoded."""
        return self._t.call(method.upper(), path, query=query, body=body)

    def close(self) -> None:
        self._t.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncModels:
    """Registered models, awaited."""

    def __init__(self, t: AsyncTransport) -> None:
        self._t = t

    async def create(self, *, name: str, model_type: str, framework: str, version: str, **extra: Any) -> Model:
        return Model.from_json(await self._t.call("POST", "/models", body=_model_body(name, model_type, framework, version, extra)))

    async def get(self, model_id: str) -> Model:
        return Model.from_json(await self._t.call("GET", f"/models/{_seg(model_id)}"))

    async def list(self, **query: Any) -> list[Model]:
        return [Model.from_json(m) for m in await self._t.call("GET", "/models", query=query)]


class AsyncPredictions:
    """Logging predictions and reading them back, awaited; batches go out concurrently."""

    def __init__(self, t: AsyncTransport) -> None:
        self._t = t

    async def log(self, model_id: str, input_data: Mapping[str, Any], output_data: Mapping[str, Any], **fields: Any) -> Any:
        body = {"model_id": model_id, "input_data": dict(input_data), "output_data": dict(output_data), **fields}
        return await self._t.call("POST", "/predictions/log", body=body, idempotent="prediction_id" in fields)

    async def log_batch(self, model_id: str, predictions: Sequence[Mapping[str, Any]], *, batch_size: int = MAX_BATCH,
                        concurrency: int = 4) -> LogResult:
        items = [dict(p) for p in predictions]
        for p in items:
            p.setdefault("prediction_id", str(uuid.uuid4()))
        sem = asyncio.Semaphore(concurrency)
        batches = _batches(items, batch_size)

        async def send(i: int, batch: list[dict[str, Any]]) -> LogResult:
            async with sem:
                r = await self._t.call("POST", "/predictions/log/batch", body={"model_id": model_id, "predictions": batch},
                                       idempotent=True)
            return _result(r, i * max(1, min(batch_size, MAX_BATCH)))

        total = LogResult(0, 0)
        for r in await asyncio.gather(*(send(i, b) for i, b in enumerate(batches))):
            total = total + r
        return total

    async def log_dataframe(self, model_id: str, data: Any, *, output_columns: Sequence[str], latency_column: str | None = None,
                            id_column: str | None = None, metadata_columns: Sequence[str] = (),
                            timestamp_column: str | None = None, batch_size: int = MAX_BATCH) -> LogResult:
        rows = _rows_of(data, output_columns, latency_column, id_column, metadata_columns, timestamp_column)
        return await self.log_batch(model_id, rows, batch_size=batch_size)

    async def stats(self, model_id: str, *, start_time: str | None = None, end_time: str | None = None) -> Stats:
        return Stats.from_json(await self._t.call("GET", f"/predictions/models/{_seg(model_id)}/stats",
                                                  query={"start_time": start_time, "end_time": end_time}))


class AsyncExplanations:
    """Explanations, awaited."""

    def __init__(self, t: AsyncTransport) -> None:
        self._t = t

    async def generate(self, model_id: str, *, instance: Mapping[str, Any] | None = None, prediction_id: str | None = None,
                       method: str | None = None, use_cache: bool | None = None,
                       background: Sequence[Mapping[str, Any]] | None = None,
                       options: ExplainOptions | None = None) -> Explanation:
        body = _explain_body(model_id, instance, prediction_id, method, use_cache, background, options)
        return Explanation.from_json(await self._t.call("POST", "/explanations/generate", body=body))

    async def get(self, explanation_id: str) -> Explanation:
        return Explanation.from_json(await self._t.call("GET", f"/explanations/{_seg(explanation_id)}"))

    async def wait(self, explanation_id: str, *, timeout: float = 120.0, interval: float = 0.2) -> Explanation:
        deadline = time.monotonic() + timeout
        while True:
            e = await self.get(explanation_id)
            if e.done:
                return e
            if time.monotonic() > deadline:
                raise TimeoutError(f"explanation {explanation_id} still {e.status} after {timeout}s")
            await asyncio.sleep(interval)

    async def explain(self, model_id: str, *, instance: Mapping[str, Any] | None = None, prediction_id: str | None = None,
                      method: str | None = None, background: Sequence[Mapping[str, Any]] | None = None,
                      options: ExplainOptions | None = None, timeout: float = 120.0) -> Explanation:
        e = await self.generate(model_id, instance=instance, prediction_id=prediction_id, method=method, background=background,
                                options=options)
        return await self.wait(e.id, timeout=timeout)


class AsyncClient:
    """An asyncio client of one Vigil server: ``async with vigil.AsyncClient(...) as c``."""

    def __init__(self, url: str, *, api_key: str | None = None, username: str | None = None, password: str | None = None,
                 timeout: float = 30.0, max_retries: int = 3) -> None:
        self._t = AsyncTransport(url, api_key=api_key, username=username, password=password, timeout=timeout,
                                 max_retries=max_retries)
        self.api = AsyncOperations(self._t)
        self.models = AsyncModels(self._t)
        self.predictions = AsyncPredictions(self._t)
        self.explanations = AsyncExplanations(self._t)

    async def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        return await self._t.call(method.upper(), path, query=query, body=body)

    async def aclose(self) -> None:
        await self._t.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
