"""Verifying a webhook (an endpoint's event or a task's callback) as Standard Webhooks defines it.

The signature is the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the secret
(`whsec_` + base64), base64-encoded, among the space-separated `v1,` entries of
`webhook-signature`. Any of several secrets may match, so a receiver keeps verifying through a
rotation's overlap.
"""

import base64
import binascii
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

#: How far a message's timestamp may be from this machine's clock, either way (seconds).
WEBHOOK_TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    """A header is missing, the timestamp is out of tolerance, or no signature matches."""


@dataclass
class VerifiedWebhook:
    #: The same on every retry and resend of a message: deduplicate on it.
    id: str
    timestamp: datetime
    payload: Any


def _header(headers: Any, name: str) -> Optional[str]:
    getter = getattr(headers, "get", None)
    items = headers.items() if hasattr(headers, "items") else headers
    for key, value in items:
        if str(key).lower() == name:
            if isinstance(value, (list, tuple)):
                return str(value[0]) if value else None
            return str(value)
    if getter is not None:  # a case-insensitive mapping (email.message.Message, http.client headers)
        value = getter(name)
        return None if value is None else str(value)
    return None


def _key(secret: str) -> bytes:
    text = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise WebhookVerificationError("A secret is not a whsec_ secret (base64 after the prefix).") from e


def sign_webhook(secret: str, message_id: str, timestamp: Union[int, str], body: Union[str, bytes]) -> str:
    """The `webhook-signature` value (`v1,<base64>`) for a message: what a sender puts in its header."""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    content = f"{message_id}.{timestamp}.".encode("utf-8") + raw
    digest = hmac.new(_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify_webhook(
    body: Union[str, bytes],
    headers: Union[Mapping[str, Any], Iterable[Any]],
    secrets: Union[str, Sequence[str]],
    *,
    tolerance: float = WEBHOOK_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> VerifiedWebhook:
    """Verifies a delivery and answers its parsed body; raises WebhookVerificationError otherwise.

    Pass the body exactly as received (the raw bytes or text, before any JSON parsing) and the
    request's headers (any mapping, or a list of pairs; names are matched case-insensitively).
    """
    message_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not message_id or not timestamp or not signatures:
        raise WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature.")
    if not timestamp.isdigit():
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds.")
    seconds = int(timestamp)
    current = int(time.time() if now is None else now)
    if abs(current - seconds) > tolerance:
        raise WebhookVerificationError(f"webhook-timestamp is more than {int(tolerance)} s from now.")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    offered = [s[3:] for s in signatures.split(" ") if s.startswith("v1,")]
    for secret in [secrets] if isinstance(secrets, str) else list(secrets):
        expected = sign_webhook(secret, message_id, timestamp, raw)[3:]
        if any(hmac.compare_digest(s.encode("ascii", "replace"), expected.encode("ascii")) for s in offered):
            try:
                payload = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as e:
                raise WebhookVerificationError("The body is not JSON.") from e
            return VerifiedWebhook(message_id, datetime.fromtimestamp(seconds, tz=timezone.utc), payload)
    raise WebhookVerificationError("No signature matches the secrets given.")
