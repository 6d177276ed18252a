"""What the client raises.

Every error response of the API becomes an `ApiError` carrying the error object as the server
sent it (`{code, type, message, retryable, param?, details?, request_id}`) and the HTTP status; a
response that is not the API's envelope (a proxy's page) is described in the same shape, so that
callers branch on one thing: `code`.
"""

import json
from typing import Any, Dict, Mapping, Optional


class ApiError(Exception):
    """An error answer of the API (or, for the subclasses, no answer at all)."""

    def __init__(
        self,
        status: int,
        error: Mapping[str, Any],
        *,
        retry_after: Optional[float] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.status: int = status
        self.error: Dict[str, Any] = dict(error)
        self.code: str = str(error.get("code", ""))
        self.type: str = str(error.get("type", "api_error"))
        self.message: str = str(error.get("message", ""))
        self.retryable: bool = bool(error.get("retryable", False))
        #: JSON Pointer to the offending request field, when the server named one.
        self.param: Optional[str] = error.get("param")
        self.details: Optional[Dict[str, Any]] = error.get("details")
        self.request_id: Optional[str] = error.get("request_id") or None
        #: Seconds, from `Retry-After`, when the response carried one.
        self.retry_after: Optional[float] = retry_after
        self.headers: Dict[str, str] = dict(headers or {})
        super().__init__(f"{self.message} ({self.code}{f', HTTP {status}' if status else ''})")


class ApiConnectionError(ApiError):
    """No response arrived (refused, reset, timed out) after the retries allowed."""

    def __init__(self, message: str) -> None:
        super().__init__(
            0,
            {"code": "connection_error", "type": "connection_error", "message": message, "retryable": True, "request_id": ""},
        )


class WaitTimeout(ApiError):
    """`wait()` gave up before the task ended; the task itself goes on."""

    def __init__(self, task_id: str, seconds: float) -> None:
        super().__init__(
            0,
            {
                "code": "wait_timeout",
                "type": "timeout_error",
                "message": f"Task {task_id} did not end within {round(seconds)} s; it goes on (wait again or cancel it).",
                "retryable": True,
                "request_id": "",
            },
        )
        self.task_id = task_id


def default_retryable(status: int) -> bool:
    """Without the API's word on it: 408, 429 and 5xx other than 501 are worth another try."""
    return status in (408, 429) or (status >= 500 and status != 501)


def error_object_of(status: int, body: bytes, headers: Mapping[str, str]) -> Dict[str, Any]:
    """The error object of a failed response; a body that is not the API's envelope is described as one."""
    request_id = headers.get("x-request-id", "")
    try:
        parsed = json.loads(body.decode("utf-8"))
        e = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(e, dict) and isinstance(e.get("code"), str) and isinstance(e.get("message"), str):
            out = dict(e)
            if not isinstance(out.get("type"), str):
                out["type"] = "api_error"
            if not isinstance(out.get("retryable"), bool):
                out["retryable"] = default_retryable(status)
            if not isinstance(out.get("request_id"), str):
                out["request_id"] = request_id
            return out
    except (ValueError, UnicodeDecodeError):
        pass
    text = " ".join(body.decode("utf-8", "replace").split())[:200]
    return {
        "code": f"http_{status}",
        "type": "api_error",
        "message": f"HTTP {status}{f': {text}' if text else ''}",
        "retryable": default_retryable(status),
        "request_id": request_id,
    }
