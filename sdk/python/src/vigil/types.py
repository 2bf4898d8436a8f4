"""What the client's own methods answer: small typed views over the API's JSON.

Each keeps the whole answer in ``raw`` for fields the view does not name.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


def _f(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) else None


def _i(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


@dataclass(frozen=True)
class Model:
    """A registered model version."""

    id: str
    name: str
    version: str
    model_type: str
    framework: str
    status: str
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Model:
        return cls(str(d["id"]), str(d.get("name", "")), str(d.get("version", "")), str(d.get("model_type", "")),
                   str(d.get("framework", "")), str(d.get("status", "")), d)


@dataclass(frozen=True)
class Stats:
    """A model's prediction statistics over a period."""

    model_id: str
    total_predictions: int
    avg_latency_ms: float | None
    p50_latency_ms: float | None
    p95_latency_ms: float | None
    p99_latency_ms: float | None
    predictions_per_hour: float | None
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Stats:
        return cls(str(d["model_id"]), int(d.get("total_predictions", 0)), _f(d.get("avg_latency_ms")),
                   _f(d.get("p50_latency_ms")), _f(d.get("p95_latency_ms")), _f(d.get("p99_latency_ms")),
                   _f(d.get("predictions_per_hour")), d)


@dataclass(frozen=True)
class LogResult:
    """What logging answered: how many were logged, and each refused item's error by index."""

    logged: int
    failed: int
    errors: list[Mapping[str, Any]] = field(default_factory=list)

    def __add__(self, other: LogResult) -> LogResult:
        return LogResult(self.logged + other.logged, self.failed + other.failed, self.errors + other.errors)


@dataclass(frozen=True)
class ExplainOptions:
    """Spec 3's options of an explanation request; None leaves the server's default.

    num_features: how many features top_features lists (1-100, default 10). num_samples: Kernel SHAP's
    coalitions and LIME's rows (100-50000, default 5000). seed: the sampling seed (default: the model's own,
    echoed on the result). config: {"background_samples": n, "max_features": n}.
    """

    num_features: int | None = None
    num_samples: int | None = None
    seed: int | None = None
    config: Mapping[str, int] | None = None


@dataclass(frozen=True)
class Explanation:
    """An explanation: pending until its status is completed, failed or cancelled."""

    id: str
    model_id: str
    method: str
    status: str
    base_value: float | None
    feature_weights: dict[str, float]
    progress: float | None
    error: str | None
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)
    score: float | None = None
    seed: int | None = None
    num_samples: int | None = None

    @property
    def done(self) -> bool:
        """True once the explanation will not change any more."""
        return self.status != "pending"

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Explanation:
        r = d.get("result")
        result: Mapping[str, Any] = r if isinstance(r, Mapping) else {}
        weights = d.get("feature_weights") or result.get("feature_contributions") or {}
        if isinstance(weights, list):
            weights = {str(w.get("feature")): float(w.get("weight", 0)) for w in weights if isinstance(w, dict)}
        err = d.get("error")
        return cls(str(d.get("id") or d.get("explanation_id")), str(d.get("model_id", "")), str(d.get("method", "")),
                   str(d.get("status", "")), _f(d.get("base_value", result.get("base_value"))),
                   {str(k): float(v) for k, v in dict(weights).items() if isinstance(v, (int, float))},
                   _f(d.get("progress")), str(err) if err else None, d,
                   _f(d.get("score", result.get("predicted_value"))), _i(d.get("seed")), _i(d.get("num_samples")))
