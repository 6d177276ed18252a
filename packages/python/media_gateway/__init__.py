"""Python client of the media generation API (standard library only).

    from media_gateway import Client

    client = Client()  # $MEDIA_API_BASE_URL, $MEDIA_API_KEY
    task = client.images.generate(prompt="a red fox in the snow")
    done = client.wait(task, timeout=300)
    client.download_outputs(done, "out")

`AsyncClient` is the same for asyncio. Every error answer is an `ApiError`.
"""

from ._async import AsyncClient
from ._base import (
    DEFAULT_BASE_URL,
    TERMINAL_STATUSES,
    ConditionalTask,
    EventStreamUnavailable,
    SavedFile,
    TaskEvent,
    is_terminal,
    operation_for_capability,
    output_artifacts,
)
from ._client import Client
from ._errors import ApiConnectionError, ApiError, WaitTimeout
from ._operations import OPERATIONS, Operation
from ._retry import RetryPolicy, backoff_delay, parse_retry_after
from ._sse import ServerSentEvent, SSEParser
from ._version import VERSION
from ._webhooks import (
    WEBHOOK_TOLERANCE_SECONDS,
    VerifiedWebhook,
    WebhookVerificationError,
    sign_webhook,
    verify_webhook,
)

__version__ = VERSION

__all__ = [
    "DEFAULT_BASE_URL",
    "OPERATIONS",
    "TERMINAL_STATUSES",
    "VERSION",
    "WEBHOOK_TOLERANCE_SECONDS",
    "ApiConnectionError",
    "ApiError",
    "AsyncClient",
    "Client",
    "ConditionalTask",
    "EventStreamUnavailable",
    "Operation",
    "RetryPolicy",
    "SSEParser",
    "SavedFile",
    "ServerSentEvent",
    "TaskEvent",
    "VerifiedWebhook",
    "WaitTimeout",
    "WebhookVerificationError",
    "backoff_delay",
    "is_terminal",
    "operation_for_capability",
    "output_artifacts",
    "parse_retry_after",
    "sign_webhook",
    "verify_webhook",
]
