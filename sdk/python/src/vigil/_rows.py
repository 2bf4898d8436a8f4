"""Rows of a DataFrame or Arrow table as predictions to log."""
from __future__ import annotations

import math
import uuid
from datetime import datetime
from typing import Any, Iterator, Mapping, Sequence


def _clean(v: Any) -> Any:
    """A JSON-ready value: NaN and NaT are null, numpy scalars plain Python, times RFC 3339."""
    if v is None:
        return None
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, datetime):
        return v.isoformat()
    item = getattr(v, "item", None)  # numpy scalar
    if callable(item):
        return _clean(item())
    iso = getattr(v, "isoformat", None)  # pandas Timestamp, date
    if callable(iso):
        try:
            return iso()
        except ValueError:  # NaT
            return None
    if isinstance(v, Mapping):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return str(v)


def records(data: Any) -> list[dict[str, Any]]:
    """The rows of a pandas DataFrame, a pyarrow Table or RecordBatch, or a list of dicts."""
    if hasattr(data, "to_pylist"):  # pyarrow
        return list(data.to_pylist())
    if hasattr(data, "to_dict"):  # pandas
        return list(data.to_dict("records"))
    return [dict(r) for r in data]


def predictions(rows: Sequence[Mapping[str, Any]], output_columns: Sequence[str], *, latency_column: str | None,
                id_column: str | None, metadata_columns: Sequence[str], timestamp_column: str | None,
                ) -> Iterator[dict[str, Any]]:
    """One prediction per row: the output columns as output_data, the named special columns
    where they go, every other column as input_data. Rows without an id get a new one, fixed
    before the first try so that a retry logs the same prediction."""
    if not output_columns:
        raise ValueError("output_columns names at least one column")
    special = set(output_columns) | set(metadata_columns)
    special |= {c for c in (latency_column, id_column, timestamp_column) if c}
    for row in rows:
        missing = [c for c in output_columns if c not in row]
        if missing:
            raise KeyError(f"output column(s) {missing} not in the data")
        p: dict[str, Any] = {
            "prediction_id": str(row[id_column]) if id_column else str(uuid.uuid4()),
            "input_data": {str(k): _clean(v) for k, v in row.items() if k not in special},
            "output_data": {c: _clean(row[c]) for c in output_columns},
        }
        if latency_column and _clean(row.get(latency_column)) is not None:
            p["latency_ms"] = float(row[latency_column])
        if metadata_columns:
            p["metadata"] = {c: _clean(row.get(c)) for c in metadata_columns}
        if timestamp_column and _clean(row.get(timestamp_column)) is not None:
            p["timestamp"] = _clean(row[timestamp_column])
        yield p
