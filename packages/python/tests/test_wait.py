"""Waiting on a task, against a scripted server: the event stream, and reads when it is missing."""

import json

from fake_server import FakeServer, Reply, error

from media_gateway import Client, SSEParser

RUNNING = {"object": "task", "task_id": "task_1", "status": "running", "progress": {"percent": 50}}
DONE = {"object": "task", "task_id": "task_1", "status": "succeeded", "progress": {"percent": 100}, "output": {"artifacts": []}}


def client(base):
    c = Client(base_url=base, api_key="sk_test")
    c.sleeps = []
    c.sleep = c.sleeps.append
    return c


def test_wait_follows_the_event_stream():
    events = (
        b"retry: 10\n\n: keep-alive\n\nid: 1\nevent: progress\ndata: " + json.dumps(RUNNING).encode() + b"\n\n"
        b"id: 2\nevent: done\ndata: " + json.dumps(DONE).encode() + b"\n\n"
    )
    reply = Reply(200, headers={"Content-Type": "text/event-stream"}, chunks=[events[:37], events[37:90], events[90:]])
    seen = []
    with FakeServer([reply]) as s:
        done = client(s.base).wait("task_1", timeout=10, on_progress=seen.append)
    assert done == DONE
    assert [u["status"] for u in seen] == ["running", "succeeded"]
    assert s.requests[0]["path"] == "/v1/tasks/task_1/events"
    assert s.requests[0]["headers"]["accept"] == "text/event-stream"


def test_wait_resumes_a_dropped_stream_with_last_event_id():
    first = b"id: 4\nevent: progress\ndata: " + json.dumps(RUNNING).encode() + b"\n\n"
    second = b"id: 5\nevent: done\ndata: " + json.dumps(DONE).encode() + b"\n\n"
    script = [Reply(200, headers={"Content-Type": "text/event-stream"}, chunks=[first]),
              Reply(200, headers={"Content-Type": "text/event-stream"}, chunks=[second])]
    with FakeServer(script) as s:
        c = client(s.base)
        assert c.wait("task_1")["status"] == "succeeded"
    assert s.requests[1]["headers"]["last-event-id"] == "4"
    assert c.sleeps == [1.0]


def test_wait_reads_the_task_when_there_is_no_stream():
    script = [
        Reply(404, error(404, "not_found", False)),
        Reply(200, RUNNING, headers={"ETag": '"v1"'}),
        Reply(304, headers={"ETag": '"v1"', "Retry-After": "2"}),
        Reply(200, DONE, headers={"ETag": '"v2"', "Preference-Applied": "wait=25"}),
    ]
    with FakeServer(script) as s:
        c = client(s.base)
        assert c.wait({"task_id": "task_1", "status": "queued"}, timeout=100) == DONE
    reads = s.requests[1:]
    assert all(r["path"] == "/v1/tasks/task_1" for r in reads)
    assert reads[0]["headers"]["prefer"] == "wait=25" and "if-none-match" not in reads[0]["headers"]
    assert reads[1]["headers"]["if-none-match"] == '"v1"'
    # The pause grows from the poll interval; a Retry-After on a read is honoured.
    assert c.sleeps == [1.0, 2.0]


def test_wait_without_events_and_a_finished_envelope():
    with FakeServer([Reply(200, DONE, headers={"ETag": '"v2"'})]) as s:
        c = client(s.base)
        assert c.wait("task_1", events=False)["status"] == "succeeded"
        assert c.wait(DONE) == DONE
    assert len(s.requests) == 1


def test_a_missing_task_is_an_error_not_a_fallback():
    with FakeServer([Reply(404, error(404, "task_not_found", False))]) as s:
        try:
            client(s.base).wait("task_nope")
        except Exception as e:  # noqa: BLE001
            assert getattr(e, "code", None) == "task_not_found"
        else:
            raise AssertionError("no error")
    assert len(s.requests) == 1


def test_chat_stream_chunks_and_a_failure_mid_stream():
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}
    failure = {"error": {"code": "upstream_failed", "type": "api_error", "message": "gone", "retryable": True, "request_id": "r"}}
    ok = b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n"
    bad = b"data: " + json.dumps(chunk).encode() + b"\r\n\r\ndata: " + json.dumps(failure).encode() + b"\r\n\r\n"
    script = [Reply(200, headers={"Content-Type": "text/event-stream"}, chunks=[ok]),
              Reply(200, headers={"Content-Type": "text/event-stream"}, chunks=[bad])]
    with FakeServer(script) as s:
        c = client(s.base)
        assert [x["choices"][0]["delta"]["content"] for x in c.chat.completions.create(model="auto", messages=[], stream=True)] == ["Hi"]
        got = []
        try:
            for x in c.chat.completions.create({"model": "auto", "messages": [], "stream": True}):
                got.append(x)
        except Exception as e:  # noqa: BLE001
            assert getattr(e, "code", None) == "upstream_failed"
        else:
            raise AssertionError("no error")
    assert len(got) == 1 and json.loads(s.requests[0]["body"])["stream"] is True


def test_the_event_parser_follows_the_standard():
    p = SSEParser()
    events = p.feed(b"\xef\xbb\xbfdata: a\r") + p.feed(b"\ndata:b\r\n\r\n: c\nid: 7\nevent: x\ndata\n\nretry: 5s\nretry: 50\ndata: z\n")
    assert [(e.event, e.data, e.id) for e in events] == [("message", "a\nb", None), ("x", "", "7")]
    assert p.close() == [] and p.retry == 50
