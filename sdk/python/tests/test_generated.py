"""The committed _operations.py is what scripts/generate.py makes of schemas/openapi.json."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_generated_operations_current() -> None:
    spec_path = HERE.parents[2] / "schemas" / "openapi.json"
    gen = importlib.util.spec_from_file_location("generate", HERE.parent / "scripts" / "generate.py")
    assert gen and gen.loader
    mod = importlib.util.module_from_spec(gen)
    gen.loader.exec_module(mod)
    want = mod.generate(json.loads(spec_path.read_text()))
    got = (HERE.parent / "src" / "vigil" / "_operations.py").read_text()
    assert got == want, "src/vigil/_operations.py is stale: run python3 sdk/python/scripts/generate.py"


def test_every_operation_has_a_method() -> None:
    spec = json.loads((HERE.parents[2] / "schemas" / "openapi.json").read_text())
    n = sum(1 for item in spec["paths"].values() for m in item if m in ("get", "post", "put", "patch", "delete"))
    import vigil

    assert vigil.OPERATION_COUNT == n
