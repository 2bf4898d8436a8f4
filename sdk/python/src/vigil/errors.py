"""Exceptions raised by the client: one class per error ``code`` of Vigil's envelope.

Every error answer of the API carries ``{"error": {"code", "message", "details",
"timestamp", "request_id"}}``; the client raises the class of its code, with
those fields as attributes. ``details`` names the offending fields of a 422.
"""
from __future__ import annotations

from typing import Any, Mapping


class VigilError(Exception):
    """An error answered by Vigil (or no answer at all: see ConnectionError)."""

    def __init__(self, status: int, code: str, message: str, details: Mapping[str, Any] | None = None,
                 request_id: str = "", retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" {dict(details)}" if details else ""))
        self.status = status
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.request_id = request_id
        self.retry_after = retry_after


class AuthenticationError(VigilError):
    """401: no credentials, wrong ones, or an expired token (AUTHENTICATION_FAILED, TOKEN_EXPIRED)."""


class PermissionDeniedError(VigilError):
    """403 INSUFFICIENT_PERMISSIONS: ``details["required_permission"]`` says which."""


class NotFoundError(VigilError):
    """404: NOT_FOUND or MODEL_NOT_FOUND (another organization's record answers the same)."""


class ValidationError(VigilError):
    """422 VALIDATION_ERROR: ``details`` maps each offending field to its problem."""


class BadRequestError(VigilError):
    """400 and the protocol errors: BAD_REQUEST, METHOD_NOT_ALLOWED, NOT_ACCEPTABLE, UNSUPPORTED_MEDIA_TYPE."""


class PayloadTooLargeError(VigilError):
    """413 PAYLOAD_TOO_LARGE."""


class ConflictError(VigilError):
    """409 RESOURCE_CONFLICT."""


class RateLimitError(VigilError):
    """429 RATE_LIMIT_EXCEEDED: ``retry_after`` seconds until the quota refills."""


class ProcessingError(VigilError):
    """PROCESSING_ERROR: the request was understood but could not be carried out."""


class ServiceUnavailableError(VigilError):
    """503 SERVICE_UNAVAILABLE: an engine behind Vigil is down; retry later."""


class InternalServerError(VigilError):
    """500 INTERNAL_ERROR."""


class ConnectionError(VigilError):  # noqa: A001 - the SDK's own, a VigilError
    """No answer: the server could not be reached or the connection broke."""


BY_CODE: dict[str, type[VigilError]] = {
    "AUTHENTICATION_FAILED": AuthenticationError,
    "TOKEN_EXPIRED": AuthenticationError,
    "INSUFFICIENT_PERMISSIONS": PermissionDeniedError,
    "MODEL_NOT_FOUND": NotFoundError,
    "NOT_FOUND": NotFoundError,
    "VALIDATION_ERROR": ValidationError,
    "RATE_LIMIT_EXCEEDED": RateLimitError,
    "RESOURCE_CONFLICT": ConflictError,
    "PROCESSING_ERROR": ProcessingError,
    "BAD_REQUEST": BadRequestError,
    "METHOD_NOT_ALLOWED": BadRequestError,
    "NOT_ACCEPTABLE": BadRequestError,
    "PAYLOAD_TOO_LARGE": PayloadTooLargeError,
    "UNSUPPORTED_MEDIA_TYPE": BadRequestError,
    "SERVICE_UNAVAILABLE": ServiceUnavailableError,
    "INTERNAL_ERROR": InternalServerError,
}

BY_STATUS: dict[int, type[VigilError]] = {
    400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError,
    409: ConflictError, 413: PayloadTooLargeError, 422: ValidationError, 429: RateLimitError,
    500: InternalServerError, 503: ServiceUnavailableError,
}


def from_response(status: int, payload: Any, retry_after: float | None = None) -> VigilError:
    """The exception of an error answer: by its envelope's code, else by its status."""
    err = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(err, dict) and isinstance(err.get("code"), str):
        cls = BY_CODE.get(err["code"], BY_STATUS.get(status, VigilError))
        return cls(status, err["code"], str(err.get("message", "")), err.get("details") or {},
                   str(err.get("request_id", "")), retry_after)
    cls = BY_STATUS.get(status, VigilError)
    return cls(status, "HTTP_%d" % status, str(payload)[:500], {}, "", retry_after)
