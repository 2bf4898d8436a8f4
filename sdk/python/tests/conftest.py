"""A real ``vigil serve`` for the tests: the binary of $VIGIL_BIN (else built with go), fresh data."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Iterator

import pytest

import vigil

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "a long passphrase for the sdk tests"


class Server:
    def __init__(self, url: str, proc: subprocess.Popen[bytes]) -> None:
        self.url, self.proc = url, proc


def _binary(tmp: Path) -> str:
    if os.environ.get("VIGIL_BIN"):
        return os.environ["VIGIL_BIN"]
    out = tmp / "vigil"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/vigil"], cwd=ROOT, check=True)
    return str(out)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        env = {**os.environ, "VIGIL_ADMIN_PASSWORD": PASSWORD, "VIGIL_RATE_LIMIT_BATCH": "1000000",
               "VIGIL_RATE_LIMIT_STANDARD": "1000000", "VIGIL_RATE_LIMIT_PREDICTIONS": "1000000"}
        proc = subprocess.Popen([_binary(tmp), "serve", "--addr", "127.0.0.1:0", "--data-dir", str(tmp / "data"),
                                 "--master-key-file", str(tmp / "master.key")], env=env, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        addr = ""
        for line in proc.stderr:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("msg") == "listening":
                addr = rec["addr"]
                break
        assert addr, "vigil serve ended before listening"
        # Keep draining the log so the server never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in proc.stderr or []], daemon=True).start()
        try:
            yield Server(f"http://{addr}", proc)
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture
def client(server: Server) -> Iterator[vigil.Client]:
    with vigil.Client(server.url, username="admin", password=PASSWORD) as c:
        yield c
