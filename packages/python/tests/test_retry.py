"""The retry rules, against a scripted server on 127.0.0.1: the TypeScript client's rules."""

import asyncio
import uuid

import pytest
from fake_server import FakeServer, Reply, error

from media_gateway import ApiConnectionError, ApiError, AsyncClient, Client, RetryPolicy, backoff_delay, parse_retry_after

TASK = {"object": "task", "task_id": "task_1", "status": "queued"}


def client(base: str, **options) -> Client:
    c = Client(base_url=base, api_key="sk_test", **options)
    c.sleeps = []
    c.sleep = c.sleeps.append
    c.random = lambda: 1.0  # the whole backoff: 0.5 s, 1 s, 2 s ...
    return c


def test_a_retryable_error_is_tried_again_with_the_same_idempotency_key():
    script = [Reply(503, error(503, "provider_unavailable", True)), Reply(500, error(500, "internal_error", True)), Reply(202, TASK)]
    with FakeServer(script) as s:
        c = client(s.base)
        task = c.images.generate(prompt="a fox")
    assert task["task_id"] == "task_1"
    assert len(s.requests) == 3
    keys = {r["headers"].get("idempotency-key") for r in s.requests}
    assert len(keys) == 1 and uuid.UUID(keys.pop()).version == 4
    assert c.sleeps == [0.5, 1.0]
    assert s.requests[0]["headers"]["authorization"] == "Bearer sk_test"


def test_a_given_idempotency_key_is_sent_on_every_attempt():
    with FakeServer([Reply(502, raw=b"<html>bad gateway</html>"), Reply(202, TASK)]) as s:
        c = client(s.base)
        c.images.generate({"prompt": "a fox"}, idempotency_key="order-1234")
    assert [r["headers"]["idempotency-key"] for r in s.requests] == ["order-1234", "order-1234"]


def test_retry_after_is_honoured():
    script = [Reply(429, error(429, "rate_limited", True), headers={"Retry-After": "2"}), Reply(200, {"object": "list", "data": []})]
    with FakeServer(script) as s:
        c = client(s.base)
        assert c.models.list() == {"object": "list", "data": []}
    assert c.sleeps == [2.0]
    assert "idempotency-key" not in s.requests[0]["headers"]


def test_a_retry_after_beyond_the_longest_wait_goes_to_the_caller():
    with FakeServer([Reply(429, error(429, "rate_limited", True), headers={"Retry-After": "120"})]) as s:
        c = client(s.base)
        with pytest.raises(ApiError) as info:
            c.models.list()
    assert info.value.retry_after == 120 and info.value.status == 429 and info.value.code == "rate_limited"
    assert c.sleeps == [] and len(s.requests) == 1


def test_a_non_retryable_error_is_raised_at_once_with_its_fields():
    body = error(422, "invalid_request", False, param="/n", details={"foreign_field": {"use": "count"}})
    with FakeServer([Reply(422, body, headers={"X-Request-Id": "req_x"})]) as s:
        c = client(s.base)
        with pytest.raises(ApiError) as info:
            c.images.generate(prompt="x", n=9)
    e = info.value
    assert (e.status, e.code, e.type, e.retryable, e.param) == (422, "invalid_request", "api_error", False, "/n")
    assert e.details == {"foreign_field": {"use": "count"}} and e.request_id == "req_invalid_request"
    assert len(s.requests) == 1


def test_the_error_object_decides_even_on_a_5xx():
    with FakeServer([Reply(500, error(500, "content_rejected", False))]) as s:
        with pytest.raises(ApiError) as info:
            client(s.base).models.list()
    assert info.value.code == "content_rejected" and len(s.requests) == 1


def test_a_body_that_is_not_the_envelope_is_described_as_one():
    with FakeServer([Reply(501, raw=b"nope", headers={"X-Request-Id": "req_1"})]) as s:
        with pytest.raises(ApiError) as info:
            client(s.base).models.list()
    e = info.value
    assert (e.code, e.retryable, e.request_id, e.status) == ("http_501", False, "req_1", 501)
    assert "nope" in e.message


def test_attempts_stop_after_max_retries():
    with FakeServer([Reply(503, error(503, "busy", True))] * 5) as s:
        c = client(s.base, max_retries=2)
        with pytest.raises(ApiError):
            c.models.list()
    assert len(s.requests) == 3 and c.sleeps == [0.5, 1.0]


def test_no_answer_is_retried_for_reads_and_keyed_creates_only():
    with FakeServer([Reply(0, drop=True), Reply(200, {"object": "list", "data": []})]) as s:
        c = client(s.base)
        c.models.list()
    assert len(s.requests) == 2
    # A chat completion takes no Idempotency-Key: sending it twice could do the work twice.
    with FakeServer([Reply(0, drop=True), Reply(200, {})]) as s:
        c = client(s.base)
        with pytest.raises(ApiConnectionError) as info:
            c.chat.completions.create(model="auto", messages=[{"role": "user", "content": "hi"}])
    assert len(s.requests) == 1 and info.value.code == "connection_error" and info.value.status == 0
    with FakeServer([Reply(0, drop=True), Reply(202, TASK)]) as s:
        client(s.base).images.generate(prompt="a fox")
    assert len(s.requests) == 2
    assert s.requests[0]["headers"]["idempotency-key"] == s.requests[1]["headers"]["idempotency-key"]


def test_the_async_client_follows_the_same_rules():
    script = [Reply(503, error(503, "busy", True), headers={"Retry-After": "1"}), Reply(202, TASK)]
    with FakeServer(script) as s:
        c = AsyncClient(base_url=s.base + "/v1/", api_key="sk_test")
        sleeps = []

        async def record(seconds):
            sleeps.append(seconds)

        c.sleep = record
        task = asyncio.run(c.videos.from_text(prompt="waves"))
    assert task["task_id"] == "task_1" and sleeps == [1.0]
    assert s.requests[0]["path"] == "/v1/videos/text-to-video"
    assert s.requests[0]["headers"]["idempotency-key"] == s.requests[1]["headers"]["idempotency-key"]


def test_backoff_and_retry_after_parsing():
    p = RetryPolicy()
    assert backoff_delay(0, p, lambda: 0.0) == 0.25 and backoff_delay(0, p, lambda: 1.0) == 0.5
    assert backoff_delay(10, p, lambda: 1.0) == 8.0
    assert parse_retry_after("3") == 3.0 and parse_retry_after("1.5") == 1.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470) == 10.0


def test_environment_defaults(monkeypatch):
    monkeypatch.setenv("MEDIA_API_BASE_URL", "http://example.test:9/v1/")
    monkeypatch.setenv("MEDIA_API_KEY", "sk_env")
    c = Client()
    assert c.base_url == "http://example.test:9" and c.api_key == "sk_env"
    monkeypatch.delenv("MEDIA_API_BASE_URL")
    assert Client().base_url == "http://127.0.0.1:8787"
