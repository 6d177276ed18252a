"""`Client`: the blocking client (urllib underneath).

    client = Client()  # MEDIA_API_BASE_URL and MEDIA_API_KEY from the environment
    task = client.images.generate(prompt="a red fox in the snow")
    done = client.wait(task)
    client.download_outputs(done, "out/")
"""

import http.client
import json
import os
import random
import socket
import tempfile
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional

from . import _http
from ._base import (
    HEALTHY_STREAM_SECONDS,
    HELD_READ_SECONDS,
    BaseClient,
    ConditionalTask,
    EventStreamUnavailable,
    SavedFile,
    TaskEvent,
    TaskRef,
    artifacts_of,
    changed,
    decode_json,
    extension_for,
    is_terminal,
    live_signed_url,
    operation_for_capability,
    prefer_header,
    task_id_of,
    unavailable,
)
from ._errors import ApiConnectionError, ApiError, WaitTimeout
from ._resources import Resources
from ._retry import Answer, Attempt, NoResponse, Sleep, parse_retry_after, plan
from ._sse import SSEParser

#: Downloads whose body broke off are started again this many times.
BODY_RETRIES = 2


class Client(BaseClient, Resources):
    """The API, blocking. `base_url` and `api_key` default to $MEDIA_API_BASE_URL and $MEDIA_API_KEY."""

    def __init__(self, base_url: Optional[str] = None, api_key: Optional[str] = None, **options: Any) -> None:
        super().__init__(base_url, api_key, **options)
        #: How backoff waits and draws its jitter (tests record the waits instead of sleeping).
        self.sleep: Callable[[float], None] = time.sleep
        self.random: Callable[[], float] = random.random
        self._attach()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is pooled: here for symmetry with AsyncClient."""

    # -----------------------------------------------------------------------------------------
    # Sending

    def send(
        self,
        method: str,
        url: str,
        headers: Dict[str, str],
        data: Optional[bytes] = None,
        *,
        idempotency_key: Optional[str] = None,
        ok_statuses: tuple = (),
        stream: bool = False,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Answer:
        """One call with the retry rules (see _retry.plan); a `stream` answer comes back unread (`answer.raw`)."""
        steps = plan(
            method,
            url,
            idempotency_key=idempotency_key,
            policy=self.retry,
            max_retries=max_retries,
            ok_statuses=ok_statuses,
            random=self.random,
        )
        step = next(steps)
        while True:
            if isinstance(step, Sleep):
                self.sleep(step.seconds)
                step = next(steps)
                continue
            assert isinstance(step, Attempt)
            try:
                outcome: Any = _http.attempt(method, url, headers, data, self.timeout if timeout is None else timeout, stream)
            except NoResponse as e:
                outcome = e
            try:
                step = steps.send(outcome)
            except StopIteration as done:
                return done.value

    def call(
        self,
        operation_id: str,
        body: Any = None,
        *,
        path_params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        data: Optional[bytes] = None,
        content_type: Optional[str] = None,
        accept: str = "application/json",
        ok_statuses: tuple = (),
        stream: bool = False,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Answer:
        """An operation of the table by operationId, answering the raw Answer (status, headers, body)."""
        method, url, h, payload, key = self.prepare(
            operation_id,
            body=body,
            data=data,
            content_type=content_type,
            path_params=path_params,
            query=query,
            idempotency_key=idempotency_key,
            headers=headers,
            accept=accept,
        )
        return self.send(
            method,
            url,
            h,
            payload,
            idempotency_key=key,
            ok_statuses=ok_statuses,
            stream=stream,
            timeout=timeout,
            max_retries=max_retries,
        )

    def request(
        self,
        operation_id: str,
        body: Any = None,
        path_params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        **options: Any,
    ) -> Any:
        """Any operation of the table by operationId, answering its JSON (None for 204).

        An operation that takes an Idempotency-Key gets a fresh uuid4 unless one is given; the
        same key is sent on every retry of the call.
        """
        answer = self.call(
            operation_id, body, path_params=path_params, query=query, idempotency_key=idempotency_key, **options
        )
        return decode_json(answer.body, answer.status)

    def create(
        self,
        operation_id: str,
        body: Mapping[str, Any],
        *,
        idempotency_key: Optional[str] = None,
        prefer_wait: Optional[float] = None,
    ) -> Dict[str, Any]:
        """A task-creating operation by operationId or by capability (`text_to_image`); answers the task envelope."""
        op_id = operation_id if operation_id in self._ops() else operation_for_capability(operation_id)
        if op_id is None:
            raise ValueError(f"no operation or capability '{operation_id}'")
        return self.request(op_id, dict(body), idempotency_key=idempotency_key, headers=prefer_header(prefer_wait))

    def run(self, operation_id: str, body: Mapping[str, Any], *, timeout: Optional[float] = None, **wait: Any) -> Dict[str, Any]:
        """Create and wait: the final envelope of a new task (whatever its status)."""
        return self.wait(self.create(operation_id, body), timeout=timeout, **wait)

    @staticmethod
    def _ops() -> Mapping[str, Any]:
        from ._operations import OPERATIONS

        return OPERATIONS

    # -----------------------------------------------------------------------------------------
    # Tasks

    def get_task(self, task: TaskRef, *, prefer_wait: Optional[float] = None) -> Dict[str, Any]:
        got = self.get_task_if_changed(task, None, prefer_wait=prefer_wait)
        assert got.task is not None
        return got.task

    def get_task_if_changed(
        self, task: TaskRef, etag: Optional[str] = None, *, prefer_wait: Optional[float] = None, timeout: Optional[float] = None
    ) -> ConditionalTask:
        headers = prefer_header(prefer_wait)
        if etag:
            headers["If-None-Match"] = etag
        if timeout is None and prefer_wait:
            timeout = prefer_wait + 30
        answer = self.call(
            "getTask", path_params={"task_id": task_id_of(task)}, headers=headers, ok_statuses=(304,), timeout=timeout
        )
        return _conditional(answer, etag)

    def task_events(
        self, task: TaskRef, *, last_event_id: Optional[str] = None, idle_timeout: float = 60.0, max_reconnects: int = 5
    ) -> Iterator[TaskEvent]:
        """The task's events until `done`, reconnecting (with Last-Event-ID) when the stream drops.

        Raises EventStreamUnavailable when the server offers no stream for it.
        """
        task_id = task_id_of(task)
        last_id = last_event_id
        retry_ms = 1000
        quiet = 0
        while True:
            try:
                answer = self.call(
                    "streamTaskEvents",
                    path_params={"task_id": task_id},
                    accept="text/event-stream",
                    headers={"Last-Event-ID": last_id} if last_id else {},
                    stream=True,
                    timeout=idle_timeout,
                )
            except ApiError as e:
                if unavailable(e):
                    raise EventStreamUnavailable(f"no event stream for {task_id}: {e}") from e
                raise
            if not answer.headers.get("content-type", "").lower().startswith("text/event-stream"):
                _http.close(answer.raw)
                raise EventStreamUnavailable(f"the events of {task_id} answered {answer.headers.get('content-type')}")
            got = False
            opened = time.monotonic()
            parser = SSEParser()
            try:
                while True:
                    chunk = _http.read_chunk(answer.raw)
                    events = parser.feed(chunk, final=not chunk)
                    for ev in events:
                        if ev.id is not None:
                            last_id = ev.id
                        if ev.retry is not None:
                            retry_ms = ev.retry
                        data = _json_or_none(ev.data)
                        if ev.event == "done" and isinstance(data, dict):
                            yield TaskEvent("done", ev.id, data)
                            return
                        if ev.event in ("status", "progress") and isinstance(data, dict):
                            got = True
                            yield TaskEvent(ev.event, ev.id, data)
                    if not chunk:
                        break
            except (OSError, socket.timeout, ValueError):
                pass  # dropped: resumed below
            finally:
                _http.close(answer.raw)
            quiet = 0 if got or time.monotonic() - opened >= HEALTHY_STREAM_SECONDS else quiet + 1
            if quiet > max_reconnects:
                raise ApiConnectionError(f"the event stream of {task_id} closed {quiet} times in a row without an event")
            self.sleep(retry_ms / 1000)

    def wait(
        self,
        task: TaskRef,
        timeout: Optional[float] = None,
        *,
        poll_interval: float = 1.0,
        events: bool = True,
        on_progress: Optional[Callable[[Dict[str, Any]], None]] = None,
    ) -> Dict[str, Any]:
        """The final envelope (whatever its status) once the task ends.

        Follows the task's event stream first; when the server has none (or it keeps failing),
        reads the task: `Prefer: wait` lets the server hold each read until the task changes,
        `If-None-Match` makes an unchanged read cheap, and a Retry-After on a read is honoured.
        `events=False` reads only. Raises WaitTimeout after `timeout` seconds (the task goes on).
        """
        task_id = task_id_of(task)
        if isinstance(task, Mapping) and is_terminal(task.get("status")) and task.get("object") == "task":
            return dict(task)
        deadline = None if timeout is None else time.monotonic() + timeout
        last: List[Optional[Mapping[str, Any]]] = [None]

        def report(update: Mapping[str, Any]) -> None:
            if changed(last[0], update):
                last[0] = update
                if on_progress:
                    on_progress(dict(update))

        def remaining() -> Optional[float]:
            if deadline is None:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaitTimeout(task_id, timeout or 0)
            return left

        if events:
            try:
                idle = 60.0 if deadline is None else max(0.5, min(60.0, deadline - time.monotonic()))
                for ev in self.task_events(task_id, idle_timeout=idle):
                    report(ev.data)
                    if ev.event == "done":
                        return ev.data
                    remaining()
            except (EventStreamUnavailable, ApiConnectionError):
                pass  # no stream (or it keeps failing): read the task instead
            remaining()
        return self._poll(task_id, report, remaining, poll_interval, watching=on_progress is not None)

    def _poll(
        self,
        task_id: str,
        report: Callable[[Mapping[str, Any]], None],
        remaining: Callable[[], Optional[float]],
        interval: float,
        watching: bool,
    ) -> Dict[str, Any]:
        etag: Optional[str] = None
        current: Optional[Dict[str, Any]] = None
        pause = interval
        while True:
            left = remaining()
            # `Prefer: wait` holds a read until the task ends: right when only the end matters, but
            # it would hide progress from a caller watching it, who gets plain conditional reads.
            hold = None if watching else (HELD_READ_SECONDS if left is None else max(1, min(HELD_READ_SECONDS, int(left))))
            got = self.get_task_if_changed(task_id, etag if current else None, prefer_wait=hold)
            etag = got.etag
            if got.task is not None:
                current = got.task
            if current is not None:
                report(current)
                if is_terminal(current.get("status")):
                    return current
            if not got.waited:
                nap = max(pause, got.retry_after or 0)
                left = remaining()
                self.sleep(nap if left is None else min(nap, left))
                pause = min(3.0 if watching else 5.0, pause * 1.5)

    # -----------------------------------------------------------------------------------------
    # Downloads

    def _open_artifact(self, a: Mapping[str, Any]) -> Answer:
        signed = live_signed_url(a, time.time())
        if signed:
            try:
                h = self.build_headers(authenticate=False, accept="*/*")
                return self.send("GET", self.resolve(signed), h, stream=True)
            except ApiError as e:
                # An expired or revoked link: the key still reaches the artifact.
                if not (e.status == 404 and a.get("artifact_id")):
                    raise
        if not a.get("artifact_id"):
            raise TypeError("the artifact has neither an id nor a live signed URL")
        return self.call("downloadArtifact", path_params={"artifact_id": a["artifact_id"]}, accept="*/*", stream=True)

    def download(self, artifact: Any, path: Optional[str] = None) -> Any:
        """An artifact's bytes (`artifact`: an id, an artifact object or a signed URL's object).

        Through its signed URL while that is valid (no key needed), else with the key. With
        `path` the bytes are written there (through a temporary file renamed once whole) and a
        SavedFile is answered; without, the bytes.
        """
        a: Dict[str, Any] = {"artifact_id": artifact} if isinstance(artifact, str) else dict(artifact)
        for attempt in range(BODY_RETRIES + 1):
            answer = self._open_artifact(a)
            content_type = answer.headers.get("content-type") or a.get("content_type") or "application/octet-stream"
            try:
                if path is None:
                    chunks = []
                    while True:
                        chunk = _http.read_chunk(answer.raw)
                        if not chunk:
                            break
                        chunks.append(chunk)
                    return b"".join(chunks)
                return SavedFile(path, content_type, _save(answer.raw, path))
            except (ConnectionError, socket.timeout, http.client.HTTPException) as e:
                if attempt >= BODY_RETRIES:
                    what = a.get("artifact_id") or "the artifact"
                    raise ApiConnectionError(f"the download of {what} broke off: {e}") from e
            finally:
                _http.close(answer.raw)
        raise AssertionError("unreachable")

    def download_outputs(self, task: Any, directory: str = ".", *, name: Optional[str] = None) -> List[SavedFile]:
        """Saves every output file of a task (an envelope, or an id: it is read first) into `directory`.

        Files are named `<task_id>-<index><ext>` (or `<name>-<index><ext>`), the extension from the content type.
        """
        envelope = self.get_task(task) if isinstance(task, str) else task
        os.makedirs(directory, exist_ok=True)
        saved = []
        stem = name or envelope.get("task_id", "output")
        for i, a in enumerate(artifacts_of(envelope)):
            index = a.get("index", i)
            path = os.path.join(directory, f"{stem}-{index}{extension_for(a.get('content_type'))}")
            saved.append(self.download(a, path))
        return saved

    # -----------------------------------------------------------------------------------------
    # Chat

    def chat_stream(self, body: Mapping[str, Any], **options: Any) -> Iterator[Dict[str, Any]]:
        """Streamed chat completion chunks (`data: {...}` until `data: [DONE]`); a failure mid-stream raises ApiError."""
        answer = self.call("createChatCompletion", dict(body), accept="text/event-stream", stream=True, **options)
        return _chat_chunks(answer)


def _chat_chunks(answer: Answer) -> Iterator[Dict[str, Any]]:
    parser = SSEParser()
    try:
        while True:
            chunk = _http.read_chunk(answer.raw)
            for ev in parser.feed(chunk, final=not chunk):
                if ev.data == "[DONE]":
                    return
                parsed = json.loads(ev.data)
                if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
                    raise ApiError(answer.status, parsed["error"], headers=answer.headers)
                yield parsed
            if not chunk:
                return
    finally:
        _http.close(answer.raw)


def _conditional(answer: Answer, etag: Optional[str]) -> ConditionalTask:
    waited = "wait" in (answer.headers.get("preference-applied") or "").lower()
    tag = answer.headers.get("etag") or etag
    retry_after = parse_retry_after(answer.headers.get("retry-after"))
    if answer.status == 304:
        return ConditionalTask(None, tag, waited, retry_after)
    return ConditionalTask(decode_json(answer.body, answer.status), tag, waited, retry_after)


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _save(raw: Any, path: str) -> int:
    directory = os.path.dirname(os.path.abspath(path))
    fd, partial = tempfile.mkstemp(prefix=os.path.basename(path) + ".part-", dir=directory)
    total = 0
    try:
        with os.fdopen(fd, "wb") as out:
            while True:
                chunk = _http.read_chunk(raw)
                if not chunk:
                    break
                out.write(chunk)
                total += len(chunk)
        os.replace(partial, path)
        return total
    except BaseException:
        try:
            os.unlink(partial)
        except OSError:
            pass
        raise
