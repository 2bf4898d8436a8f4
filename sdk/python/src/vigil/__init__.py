"""Vigil's Python client: monitoring of ML models and LLM calls.

    import vigil
    c = vigil.Client("http://localhost:8080", username="admin", password="...")
    m = c.models.create(name="churn", model_type="classification", framework="sklearn", version="1.0.0")
    c.predictions.log_dataframe(m.id, df, output_columns=["prediction"], latency_column="latency_ms")
    print(c.predictions.stats(m.id).total_predictions)
"""
from . import errors
from ._operations import OPERATION_COUNT
from .client import MAX_BATCH, AsyncClient, Client
from .errors import (AuthenticationError, BadRequestError, ConflictError, NotFoundError, PermissionDeniedError,
                     RateLimitError, ServiceUnavailableError, ValidationError, VigilError)
from .logger import BatchLogger, LoggerStats
from .types import ExplainOptions, Explanation, LogResult, Model, Stats

__version__ = "0.1.0"

__all__ = [
    "OPERATION_COUNT", "MAX_BATCH", "AsyncClient", "Client", "BatchLogger", "LoggerStats", "ExplainOptions", "Explanation", "LogResult",
    "Model", "Stats", "errors", "VigilError", "AuthenticationError", "BadRequestError", "ConflictError", "NotFoundError",
    "PermissionDeniedError", "RateLimitError", "ServiceUnavailableError", "ValidationError",
]
