"""The client against a real server: the README's five lines, errors, keys, explanations."""
from __future__ import annotations

import time
import uuid

import pandas as pd
import pyarrow as pa
import pytest

import vigil
from conftest import PASSWORD, Server


def wait_total(c: vigil.Client, model_id: str, want: int, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while True:
        total = c.predictions.stats(model_id, start_time="2000-01-01T00:00:00Z").total_predictions
        if total >= want or time.monotonic() > deadline:
            return total
        time.sleep(0.1)


def name() -> str:
    return "m-" + uuid.uuid4().hex[:8]


def test_readme_five_lines(server: Server) -> None:
    df = pd.DataFrame({"age": [42, 23, 35], "plan": ["pro", "free", "pro"], "prediction": [1, 0, 1],
                       "latency_ms": [12.0, 9.5, 11.0]})
    c = vigil.Client(server.url, username="admin", password=PASSWORD)
    m = c.models.create(name=name(), model_type="classification", framework="sklearn", version="1.0.0")
    r = c.predictions.log_dataframe(m.id, df, output_columns=["prediction"], latency_column="latency_ms")
    assert (r.logged, r.failed) == (3, 0)
    assert wait_total(c, m.id, 3) == 3
    stats = c.predictions.stats(m.id, start_time="2000-01-01T00:00:00Z")
    assert stats.avg_latency_ms == pytest.approx((12.0 + 9.5 + 11.0) / 3)
    stored = c.predictions.query(m.id, limit=10)
    rows = stored["predictions"] if isinstance(stored, dict) else stored
    got = sorted(p["input_data"]["age"] for p in rows)
    assert got == [23, 35, 42], f"got inputs {got}: the output and latency columns must not be inputs"
    assert all(set(p["input_data"]) == {"age", "plan"} for p in rows)
    c.close()


def test_arrow_and_ids(client: vigil.Client) -> None:
    m = client.models.create(name=name(), model_type="regression", framework="xgboost", version="2")
    table = pa.table({"id": ["a", "b"], "x": [1.5, float("nan")], "y": [0.3, 0.7]})
    r = client.predictions.log_arrow(m.id, table, output_columns=["y"], id_column="id")
    assert r.logged == 2
    # The same ids again: the server keeps each once (a retry is safe). A third
    # prediction logged after them is counted only once they were processed.
    client.predictions.log_arrow(m.id, table, output_columns=["y"], id_column="id")
    client.predictions.log_arrow(m.id, pa.table({"id": ["c"], "x": [2.0], "y": [0.1]}), output_columns=["y"], id_column="id")
    assert wait_total(client, m.id, 3) == 3


def test_errors_by_code(server: Server, client: vigil.Client) -> None:
    with pytest.raises(vigil.AuthenticationError) as e:
        vigil.Client(server.url, username="admin", password="not the password").models.list()
    assert e.value.status == 401 and e.value.code == "AUTHENTICATION_FAILED"
    with pytest.raises(vigil.NotFoundError) as nf:
        client.models.get(str(uuid.uuid4()))
    assert nf.value.status == 404 and nf.value.request_id
    with pytest.raises(vigil.ValidationError) as v:
        client.models.create(name="", model_type="classification", framework="sklearn", version="1")
    assert v.value.status == 422 and "name" in v.value.details
    m = client.models.create(name=name(), model_type="classification", framework="sklearn", version="1")
    with pytest.raises(vigil.ConflictError):
        client.models.create(name=m.name, model_type="classification", framework="sklearn", version="1")


def test_api_key_and_generated_operations(server: Server, client: vigil.Client) -> None:
    key = client.api.api_keys.create_api_key({"name": "sdk", "scopes": ["read", "write"]})
    with vigil.Client(server.url, api_key=key["raw_key"]) as k:
        m = k.models.create(name=name(), model_type="classification", framework="sklearn", version="1")
        got = k.api.models.get_model(m.id)
        assert got["id"] == m.id
        assert vigil.OPERATION_COUNT >= 200
        with pytest.raises(vigil.PermissionDeniedError):
            k.api.users.list_users()


def test_batch_logger(client: vigil.Client) -> None:
    m = client.models.create(name=name(), model_type="classification", framework="sklearn", version="1")
    with vigil.BatchLogger(client, m.id, batch_size=250, flush_interval=0.05) as logger:
        ids = [logger.log({"x": i}, {"prediction": i % 2}, latency_ms=1.0) for i in range(2_000)]
        assert logger.flush(timeout=30)
        assert logger.stats.logged == 2_000 and logger.pending == 0 and logger.stats.dropped == 0
    assert len(set(ids)) == 2_000
    assert wait_total(client, m.id, 2_000) == 2_000


def test_batch_logger_never_blocks(client: vigil.Client) -> None:
    m = client.models.create(name=name(), model_type="classification", framework="sklearn", version="1")
    logger = vigil.BatchLogger(client, m.id, max_buffer=10, flush_interval=60, batch_size=1000, workers=1)
    for i in range(25):
        logger.log({"x": i}, {"prediction": 0})
    assert logger.stats.dropped == 15
    logger.close()
    assert logger.stats.logged == 10 and logger.pending == 0


def test_explanations(client: vigil.Client) -> None:
    m = client.models.create(name=name(), model_type="regression", framework="sklearn", version="1")
    client.explanations.set_artifact(m.id, {"kind": "linear", "features": ["a", "b"], "coefficients": [2.0, -1.0],
                                            "intercept": 0.5, "link": "identity"})
    e = client.explanations.explain(m.id, instance={"a": 3.0, "b": 1.0}, method="shap",
                                    background=[{"a": 0.0, "b": 0.0}, {"a": 1.0, "b": 2.0}])
    assert e.status == "completed", e.error
    assert e.base_value is not None
    assert e.base_value + sum(e.feature_weights.values()) == pytest.approx(2.0 * 3.0 - 1.0 + 0.5)
    assert e.score == pytest.approx(2.0 * 3.0 - 1.0 + 0.5)
    assert e.raw["result"]["feature_contributions"] == e.raw["feature_weights"]
    assert [f["feature"] for f in e.raw["result"]["top_features"]] == ["a", "b"]

    # spec 3's options: LIME with a seed and a sample size, the same values twice, both echoed.
    opts = vigil.ExplainOptions(num_features=1, num_samples=1000, seed=11, config={"background_samples": 2})
    bg = [{"a": 0.0, "b": 0.0}, {"a": 1.0, "b": 2.0}, {"a": 2.0, "b": -1.0}]
    one, two = (client.explanations.wait(client.explanations.generate(
        m.id, instance={"a": 3.0, "b": 1.0}, method="lime", background=bg, use_cache=False, options=opts).id)
        for _ in range(2))
    assert not two.raw["cached"]
    assert one.status == "completed", one.error
    assert (one.seed, one.num_samples) == (11, 1000)
    assert one.feature_weights == two.feature_weights and one.base_value == two.base_value
    assert len(one.raw["result"]["top_features"]) == 1 and one.raw["background_rows"] == 2
    imp = client.explanations.importance(m.id)
    assert imp["method"] == "shap" and set(imp["feature_importance"]) == {"a", "b"}


async def _async_flow(server: Server) -> None:
    async with vigil.AsyncClient(server.url, username="admin", password=PASSWORD) as c:
        m = await c.models.create(name=name(), model_type="classification", framework="sklearn", version="1")
        df = pd.DataFrame({"x": list(range(2500)), "prediction": [i % 2 for i in range(2500)]})
        r = await c.predictions.log_dataframe(m.id, df, output_columns=["prediction"])
        assert r.logged == 2500
        with pytest.raises(vigil.NotFoundError):
            await c.models.get(str(uuid.uuid4()))


def test_async_client(server: Server) -> None:
    import asyncio

    asyncio.run(_async_flow(server))
