"""Webhook verification, against messages signed as the service signs them
(src/webhooks/callback-signing.ts, the `standardwebhooks` library)."""

import json
import os

import pytest

from media_gateway import WebhookVerificationError, sign_webhook, verify_webhook

# Signed by the service's signatureHeaders() with two secrets (a rotation's overlap).
VECTOR = {
    "secrets": ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24tdGVzdA=="],
    "body": '{"type":"task.succeeded","data":{"task_id":"task_abc","status":"succeeded","note":"ünïcode ✓"}}',
    "headers": {
        "webhook-id": "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
        "webhook-timestamp": "1796297000",
        "webhook-signature": "v1,rCz3/T3XJ7WFMy1LMiboIDi4CoKGOgnjrXKuHutFRn4= v1,QGS3q6GRYGCGdd8FfWVrXkDAdjWCVOHs5Ak1X2wrCgc=",
    },
}
NOW = 1796297000 + 60


def vectors():
    out = [VECTOR]
    # A message the npm test signs afresh with the service's own code, when it runs this suite.
    fresh = os.environ.get("MEDIA_TEST_WEBHOOK_VECTOR")
    if fresh:
        out.append(json.loads(fresh))
    return out


@pytest.mark.parametrize("vector", vectors())
def test_a_message_signed_by_the_service_verifies_with_either_secret(vector):
    now = int(vector["headers"]["webhook-timestamp"]) + 60
    for secret in vector["secrets"]:
        got = verify_webhook(vector["body"].encode("utf-8"), vector["headers"], secret, now=now)
        assert got.id == vector["headers"]["webhook-id"]
        assert got.payload == json.loads(vector["body"])
        assert int(got.timestamp.timestamp()) == int(vector["headers"]["webhook-timestamp"])
    # Header names in any case, as a list of pairs, and the body as text.
    pairs = [(k.title(), v) for k, v in vector["headers"].items()]
    assert verify_webhook(vector["body"], pairs, vector["secrets"], now=now).id == vector["headers"]["webhook-id"]


def test_a_tampered_body_or_a_wrong_secret_is_refused():
    with pytest.raises(WebhookVerificationError, match="No signature"):
        verify_webhook(VECTOR["body"].replace("succeeded", "failed"), VECTOR["headers"], VECTOR["secrets"], now=NOW)
    with pytest.raises(WebhookVerificationError, match="No signature"):
        verify_webhook(VECTOR["body"], VECTOR["headers"], "whsec_" + "QUJD" * 8, now=NOW)


def test_the_timestamp_must_be_within_five_minutes():
    ts = int(VECTOR["headers"]["webhook-timestamp"])
    assert verify_webhook(VECTOR["body"], VECTOR["headers"], VECTOR["secrets"][0], now=ts - 300).id
    for now in (ts + 301, ts - 301):
        with pytest.raises(WebhookVerificationError, match="300 s"):
            verify_webhook(VECTOR["body"], VECTOR["headers"], VECTOR["secrets"][0], now=now)


def test_missing_headers_and_bad_secrets():
    headers = dict(VECTOR["headers"])
    del headers["webhook-signature"]
    with pytest.raises(WebhookVerificationError, match="Missing"):
        verify_webhook(VECTOR["body"], headers, VECTOR["secrets"], now=NOW)
    with pytest.raises(WebhookVerificationError, match="whsec_"):
        verify_webhook(VECTOR["body"], VECTOR["headers"], "whsec_***", now=NOW)


def test_sign_webhook_gives_what_verify_accepts():
    secret = "whsec_" + "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMy"
    body = b'{"ok":true}'
    headers = {"webhook-id": "msg_1", "webhook-timestamp": "1700000000",
               "webhook-signature": "v1,bogus " + sign_webhook(secret, "msg_1", 1700000000, body)}
    assert verify_webhook(body, headers, secret, now=1700000000).payload == {"ok": True}
    assert VECTOR["headers"]["webhook-signature"].split(" ")[0] == sign_webhook(
        VECTOR["secrets"][0], VECTOR["headers"]["webhook-id"], VECTOR["headers"]["webhook-timestamp"], VECTOR["body"]
    )
