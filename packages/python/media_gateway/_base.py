"""What both clients share: configuration, URLs, headers, and small readers of envelopes."""

import json
import os
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import quote, urlencode, urljoin

from ._errors import ApiConnectionError, ApiError
from ._operations import OPERATIONS, Operation
from ._retry import RetryPolicy
from ._version import VERSION

DEFAULT_BASE_URL = "http://127.0.0.1:8787"
TERMINAL_STATUSES = ("succeeded", "failed", "canceled", "expired")
#: How long a read may be held (`Prefer: wait`) when only the end of the task matters.
HELD_READ_SECONDS = 25
#: A signed URL is used only with this much of its life left (seconds).
SIGNED_URL_MARGIN = 30
#: A stream open this long was healthy, whatever it brought (seconds).
HEALTHY_STREAM_SECONDS = 30

TaskRef = Union[str, Mapping[str, Any]]


class EventStreamUnavailable(Exception):
    """The server has no event stream for this task: follow it by reading it."""


@dataclass
class TaskEvent:
    """An event of a task's stream: `status` or `progress` (data: task_id, status, progress) or `done` (data: the envelope)."""

    event: str
    id: Optional[str]
    data: Dict[str, Any]


@dataclass
class ConditionalTask:
    """A conditional read of a task: `task` is None when it is unchanged since the ETag sent (304)."""

    task: Optional[Dict[str, Any]]
    etag: Optional[str]
    #: The server held the read (`Preference-Applied: wait`).
    waited: bool
    #: A `Retry-After` the server sent with the answer (seconds), if any.
    retry_after: Optional[float] = None


@dataclass
class SavedFile:
    path: str
    content_type: str
    bytes: int


def normalize_base_url(base: str) -> str:
    base = base.strip().rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def task_id_of(task: TaskRef) -> str:
    if isinstance(task, str):
        return task
    tid = task.get("task_id")
    if not isinstance(tid, str):
        raise TypeError("a task is its id or an envelope with task_id")
    return tid


def is_terminal(status: Optional[str]) -> bool:
    return status in TERMINAL_STATUSES


def output_artifacts(task: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The output files of an envelope that can still be fetched, in output order."""
    output = task.get("output") or {}
    items = output.get("artifacts") if isinstance(output, dict) else None
    if not isinstance(items, list):
        return []
    return [a for a in items if isinstance(a, dict) and isinstance(a.get("artifact_id"), str) and a.get("deleted") is not True]


def changed(a: Optional[Mapping[str, Any]], b: Mapping[str, Any]) -> bool:
    if a is None:
        return True
    pa, pb = a.get("progress") or {}, b.get("progress") or {}
    keys = ("percent", "stage", "message", "queue_position", "eta_seconds")
    return a.get("status") != b.get("status") or any(pa.get(k) != pb.get(k) for k in keys)


def unavailable(e: ApiError) -> bool:
    """A 404 for the task itself is an answer; a 404 for the route means there is no stream here."""
    if isinstance(e, ApiConnectionError):
        return False
    return (e.status == 404 and e.code != "task_not_found") or e.status in (405, 501)


def live_signed_url(a: Mapping[str, Any], now: float) -> Optional[str]:
    url = a.get("signed_url")
    if not isinstance(url, str) or not url:
        return None
    until = a.get("signed_url_expires_at")
    if isinstance(until, str):
        try:
            at = datetime.fromisoformat(until.replace("Z", "+00:00"))
            if at.tzinfo is None:
                at = at.replace(tzinfo=timezone.utc)
            if at.timestamp() - now <= SIGNED_URL_MARGIN:
                return None
        except ValueError:
            pass
    return url


_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/gif": ".gif",
    "video/mp4": ".mp4",
    "video/webm": ".webm",
    "video/quicktime": ".mov",
    "audio/mpeg": ".mp3",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/flac": ".flac",
    "audio/ogg": ".ogg",
    "audio/opus": ".opus",
    "audio/aac": ".aac",
    "text/plain": ".txt",
    "application/json": ".json",
}


def extension_for(content_type: Optional[str]) -> str:
    return _EXTENSIONS.get((content_type or "").split(";")[0].strip().lower(), ".bin")


def merge_body(body: Optional[Mapping[str, Any]], fields: Mapping[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = dict(body or {})
    out.update({k: v for k, v in fields.items() if v is not None})
    return out


class BaseClient:
    """Configuration and request building (no I/O)."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        max_retries: int = 3,
        timeout: float = 60.0,
        retry: Optional[RetryPolicy] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.base_url = normalize_base_url(base_url or os.environ.get("MEDIA_API_BASE_URL") or DEFAULT_BASE_URL)
        self.api_key = api_key if api_key is not None else os.environ.get("MEDIA_API_KEY")
        policy = retry or RetryPolicy()
        self.retry = RetryPolicy(max_retries, policy.base_delay, policy.max_delay, policy.max_retry_after)
        self.timeout = timeout
        self.headers = dict(headers or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def resolve(self, path_or_url: str) -> str:
        """An absolute URL for a path or a link the API returned (links are relative without a public base URL)."""
        return urljoin(self.base_url + "/", path_or_url)

    @staticmethod
    def operation(operation_id: str) -> Operation:
        try:
            return OPERATIONS[operation_id]
        except KeyError:
            raise ValueError(f"unknown operation '{operation_id}'") from None

    def url_for(
        self,
        op: Operation,
        path_params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
    ) -> str:
        path = op.path
        for name in op.path_params:
            value = (path_params or {}).get(name)
            if value is None or value == "":
                raise TypeError(f"missing path parameter '{name}' for {op.method} {op.path}")
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        pairs: List[Tuple[str, str]] = []
        for k, v in (query or {}).items():
            if v is None:
                continue
            for item in v if isinstance(v, (list, tuple)) else [v]:
                pairs.append((k, ("true" if item else "false") if isinstance(item, bool) else str(item)))
        return self.base_url + path + (("?" + urlencode(pairs)) if pairs else "")

    def build_headers(
        self,
        *,
        authenticate: bool,
        accept: str = "application/json",
        idempotency_key: Optional[str] = None,
        content_type: Optional[str] = None,
        extra: Optional[Mapping[str, str]] = None,
    ) -> Dict[str, str]:
        h: Dict[str, str] = dict(self.headers)
        h["Accept"] = accept
        h["User-Agent"] = f"media-gateway-python/{VERSION}"
        if authenticate and self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        if idempotency_key:
            h["Idempotency-Key"] = idempotency_key
        if content_type:
            h["Content-Type"] = content_type
        for k, v in (extra or {}).items():
            h[k] = v
        return h

    def prepare(
        self,
        operation_id: str,
        *,
        body: Any = None,
        data: Optional[bytes] = None,
        content_type: Optional[str] = None,
        path_params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        accept: str = "application/json",
    ) -> Tuple[str, str, Dict[str, str], Optional[bytes], Optional[str]]:
        """Method, URL, headers, body bytes and the Idempotency-Key (made once here when the operation takes one)."""
        op = self.operation(operation_id)
        if op.idempotency_key and not idempotency_key:
            idempotency_key = str(uuid.uuid4())
        if body is not None:
            data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            content_type = "application/json"
        elif data is not None:
            content_type = content_type or "application/octet-stream"
        h = self.build_headers(
            authenticate=op.auth != "none",
            accept=accept,
            idempotency_key=idempotency_key,
            content_type=content_type,
            extra=headers,
        )
        if op.method in ("POST", "PUT", "PATCH") and data is None:
            data = b""
        return op.method, self.url_for(op, path_params, query), h, data, idempotency_key


def decode_json(body: Optional[bytes], status: int) -> Any:
    if status == 204 or not body:
        return None
    return json.loads(body.decode("utf-8"))


def prefer_header(seconds: Optional[float]) -> Dict[str, str]:
    return {"Prefer": f"wait={max(1, round(seconds))}"} if seconds else {}


def operation_for_capability(capability: str) -> Optional[str]:
    """The create operation serving a capability (`text_to_image`, `video_extend`, ...)."""
    for op_id, op in OPERATIONS.items():
        if op.capability == capability:
            return op_id
    return None


def artifacts_of(item: Union[str, Mapping[str, Any], Sequence[Any]]) -> List[Dict[str, Any]]:
    if isinstance(item, str):
        return [{"artifact_id": item}]
    if isinstance(item, Mapping):
        if "artifact_id" in item:
            return [dict(item)]
        return output_artifacts(item)
    return [a for x in item for a in artifacts_of(x)]
