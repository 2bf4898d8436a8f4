"""The HTTP layer under every client: authentication, JSON, errors, retries."""
from __future__ import annotations

import asyncio
import time
from typing import Any, Mapping
from urllib.parse import quote

import httpx

from . import errors

#: Methods retried on 503 and on a broken connection: they change nothing twice.
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD"})


def _seg(value: str) -> str:
    """A path segment, escaped (an id never reaches another path)."""
    return quote(str(value), safe="")


def _base(url: str) -> str:
    url = url.rstrip("/")
    return url if url.endswith("/api/v1") else url + "/api/v1"


def _query(query: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not query:
        return None
    out: dict[str, Any] = {}
    for k, v in query.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, (list, tuple)):
            v = ",".join(str(x) for x in v)
        out[k] = v
    return out or None


def _retry_after(res: httpx.Response) -> float | None:
    v = res.headers.get("Retry-After")
    try:
        return float(v) if v is not None else None
    except ValueError:
        return None


def _decode(res: httpx.Response) -> Any:
    if not res.content:
        return None
    if "json" in res.headers.get("Content-Type", ""):
        return res.json()
    return res.content


def _request(token: str | None, query: Mapping[str, Any] | None, body: Any, content_type: str | None) -> dict[str, Any]:
    """httpx's arguments of one call: the bearer, the query, and the body as JSON or as the bytes given."""
    headers = {"Authorization": f"Bearer {token}"}
    kwargs: dict[str, Any] = {"params": _query(query), "headers": headers}
    if isinstance(body, (bytes, str)):
        kwargs["content"] = body
        headers["Content-Type"] = content_type or ("application/octet-stream" if isinstance(body, bytes) else "text/plain")
    elif body is not None:
        kwargs["json"] = body
    return kwargs


def _retryable(status: int, method: str, idempotent: bool) -> bool:
    """Whether an error answer is worth another try: a 429 always, a 503 when the call changes nothing twice."""
    return status == 429 or (status == 503 and (idempotent or method in IDEMPOTENT))


class _Auth:
    """Credentials: an API key, or a username and password logged in on first use."""

    def __init__(self, api_key: str | None, username: str | None, password: str | None) -> None:
        if api_key and (username or password):
            raise ValueError("give api_key or username and password, not both")
        if not api_key and not (username and password):
            raise ValueError("give api_key=... or username=... and password=...")
        self.api_key, self.username, self.password = api_key, username, password
        self.token: str | None = api_key

    def login_body(self) -> dict[str, str]:
        return {"username": self.username or "", "password": self.password or ""}


class SyncTransport:
    """Blocking calls over one httpx.Client (connection pool kept)."""

    def __init__(self, url: str, *, api_key: str | None = None, username: str | None = None,
                 password: str | None = None, timeout: float = 30.0, max_retries: int = 3,
                 http: httpx.Client | None = None) -> None:
        self.base = _base(url)
        self.auth = _Auth(api_key, username, password)
        self.max_retries = max_retries
        self.http = http or httpx.Client(timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def _login(self) -> None:
        res = self.http.post(self.base + "/auth/login", json=self.auth.login_body())
        if res.status_code != 200:
            raise errors.from_response(res.status_code, _decode(res), _retry_after(res))
        self.auth.token = res.json()["access_token"]

    def call(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None,
             idempotent: bool = False, raw: bool = False, content_type: str | None = None) -> Any:
        """One API call: the decoded answer, or the exception of its error envelope.

        A 429 is retried after its Retry-After, a 503 or a broken connection
        when the call changes nothing twice (GET, PUT, DELETE, or idempotent=True),
        up to max_retries times; an expired login token is renewed once.
        """
        if self.auth.token is None:
            self._login()
        relogged = False
        for attempt in range(self.max_retries + 1):
            kwargs = _request(self.auth.token, query, body, content_type)
            try:
                res = self.http.request(method, self.base + path, **kwargs)
            except httpx.TransportError as e:
                if attempt < self.max_retries and (idempotent or method in IDEMPOTENT):
                    time.sleep(min(0.2 * 2 ** attempt, 5))
                    continue
                raise errors.ConnectionError(0, "CONNECTION_ERROR", str(e)) from e
            if res.status_code < 400:
                return res.content if raw else _decode(res)
            err = errors.from_response(res.status_code, _decode(res), _retry_after(res))
            if err.code == "TOKEN_EXPIRED" and self.auth.api_key is None and not relogged:
                relogged = True
                self._login()
                continue
            if not (attempt < self.max_retries and _retryable(res.status_code, method, idempotent)):
                raise err
            time.sleep(err.retry_after if err.retry_after is not None else min(0.2 * 2 ** attempt, 5))
        raise AssertionError("unreachable")


class AsyncTransport:
    """The same calls over one httpx.AsyncClient."""

    def __init__(self, url: str, *, api_key: str | None = None, username: str | None = None,
                 password: str | None = None, timeout: float = 30.0, max_retries: int = 3,
                 http: httpx.AsyncClient | None = None) -> None:
        self.base = _base(url)
        self.auth = _Auth(api_key, username, password)
        self.max_retries = max_retries
        self.http = http or httpx.AsyncClient(timeout=timeout)
        self._lock = asyncio.Lock()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def _login(self) -> None:
        async with self._lock:
            res = await self.http.post(self.base + "/auth/login", json=self.auth.login_body())
            if res.status_code != 200:
                raise errors.from_response(res.status_code, _decode(res), _retry_after(res))
            self.auth.token = res.json()["access_token"]

    async def call(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None,
                   idempotent: bool = False, raw: bool = False, content_type: str | None = None) -> Any:
        """As SyncTransport.call, awaited."""
        if self.auth.token is None:
            await self._login()
        relogged = False
        for attempt in range(self.max_retries + 1):
            kwargs = _request(self.auth.token, query, body, content_type)
            try:
                res = await self.http.request(method, self.base + path, **kwargs)
            except httpx.TransportError as e:
                if attempt < self.max_retries and (idempotent or method in IDEMPOTENT):
                    await asyncio.sleep(min(0.2 * 2 ** attempt, 5))
                    continue
                raise errors.ConnectionError(0, "CONNECTION_ERROR", str(e)) from e
            if res.status_code < 400:
                return res.content if raw else _decode(res)
            err = errors.from_response(res.status_code, _decode(res), _retry_after(res))
            if err.code == "TOKEN_EXPIRED" and self.auth.api_key is None and not relogged:
                relogged = True
                await self._login()
                continue
            if not (attempt < self.max_retries and _retryable(res.status_code, method, idempotent)):
                raise err
            await asyncio.sleep(err.retry_after if err.retry_after is not None else min(0.2 * 2 ** attempt, 5))
        raise AssertionError("unreachable")
