"""`AsyncClient`: the same API for asyncio.

Each HTTP attempt (and each read of a stream) runs the blocking urllib call in the loop's default
thread executor; waits between attempts are `asyncio.sleep`. The groups are the same as Client's
(`await client.images.generate(...)`, `async for chunk in await client.chat.completions.create(..., stream=True)`).
"""

import asyncio
import functools
import http.client
import json
import os
import random
import socket
import tempfile
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional

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
from ._client import BODY_RETRIES, _conditional, _json_or_none
from ._errors import ApiConnectionError, ApiError, WaitTimeout
from ._operations import OPERATIONS
from ._resources import Resources
from ._retry import Answer, Attempt, NoResponse, Sleep, plan
from ._sse import SSEParser


async def _in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, functools.partial(fn, *args))


class AsyncClient(BaseClient, Resources):
    """The API for asyncio. `base_url` and `api_key` default to $MEDIA_API_BASE_URL and $MEDIA_API_KEY."""

    def __init__(self, base_url: Optional[str] = None, api_key: Optional[str] = None, **options: Any) -> None:
        super().__init__(base_url, api_key, **options)
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self.random: Callable[[], float] = random.random
        self._attach()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Nothing is pooled: here for `async with`."""

    # -----------------------------------------------------------------------------------------
    # Sending

    async def send(
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
                await self.sleep(step.seconds)
                step = next(steps)
                continue
            assert isinstance(step, Attempt)
            try:
                outcome: Any = await _in_thread(
                    _http.attempt, method, url, headers, data, self.timeout if timeout is None else timeout, stream
                )
            except NoResponse as e:
                outcome = e
            try:
                step = steps.send(outcome)
            except StopIteration as done:
                return done.value

    async def call(
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
        return await self.send(
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

    async def request(
        self,
        operation_id: str,
        body: Any = None,
        path_params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        **options: Any,
    ) -> Any:
        """Any operation of the table by operationId, answering its JSON (None for 204)."""
        answer = await self.call(
            operation_id, body, path_params=path_params, query=query, idempotency_key=idempotency_key, **options
        )
        return decode_json(answer.body, answer.status)

    async def create(
        self,
        operation_id: str,
        body: Mapping[str, Any],
        *,
        idempotency_key: Optional[str] = None,
        prefer_wait: Optional[float] = None,
    ) -> Dict[str, Any]:
        op_id = operation_id if operation_id in OPERATIONS else operation_for_capability(operation_id)
        if op_id is None:
            raise ValueError(f"no operation or capability '{operation_id}'")
        return await self.request(op_id, dict(body), idempotency_key=idempotency_key, headers=prefer_header(prefer_wait))

    async def run(
        self, operation_id: str, body: Mapping[str, Any], *, timeout: Optional[float] = None, **wait: Any
    ) -> Dict[str, Any]:
        return await self.wait(await self.create(operation_id, body), timeout=timeout, **wait)

    # -----------------------------------------------------------------------------------------
    # Tasks

    async def get_task(self, task: TaskRef, *, prefer_wait: Optional[float] = None) -> Dict[str, Any]:
        got = await self.get_task_if_changed(task, None, prefer_wait=prefer_wait)
        assert got.task is not None
        return got.task

    async def get_task_if_changed(
        self, task: TaskRef, etag: Optional[str] = None, *, prefer_wait: Optional[float] = None, timeout: Optional[float] = None
    ) -> ConditionalTask:
        headers = prefer_header(prefer_wait)
        if etag:
            headers["If-None-Match"] = etag
        if timeout is None and prefer_wait:
            timeout = prefer_wait + 30
        answer = await self.call(
            "getTask", path_params={"task_id": task_id_of(task)}, headers=headers, ok_statuses=(304,), timeout=timeout
        )
        return _conditional(answer, etag)

    async def task_events(
        self, task: TaskRef, *, last_event_id: Optional[str] = None, idle_timeout: float = 60.0, max_reconnects: int = 5
    ) -> AsyncIterator[TaskEvent]:
        task_id = task_id_of(task)
        last_id = last_event_id
        retry_ms = 1000
        quiet = 0
        while True:
            try:
                answer = await self.call(
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
                    chunk = await _in_thread(_http.read_chunk, answer.raw)
                    for ev in parser.feed(chunk, final=not chunk):
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
                pass
            finally:
                _http.close(answer.raw)
            quiet = 0 if got or time.monotonic() - opened >= HEALTHY_STREAM_SECONDS else quiet + 1
            if quiet > max_reconnects:
                raise ApiConnectionError(f"the event stream of {task_id} closed {quiet} times in a row without an event")
            await self.sleep(retry_ms / 1000)

    async def wait(
        self,
        task: TaskRef,
        timeout: Optional[float] = None,
        *,
        poll_interval: float = 1.0,
        events: bool = True,
        on_progress: Optional[Callable[[Dict[str, Any]], None]] = None,
    ) -> Dict[str, Any]:
        """The final envelope once the task ends: the event stream first, then reads (see Client.wait)."""
        task_id = task_id_of(task)
        if isinstance(task, Mapping) and is_terminal(task.get("status")) and task.get("object") == "task":
            return dict(task)
        try:
            return await asyncio.wait_for(self._follow(task_id, poll_interval, events, on_progress, timeout), timeout)
        except asyncio.TimeoutError:
            raise WaitTimeout(task_id, timeout or 0) from None

    async def _follow(
        self,
        task_id: str,
        interval: float,
        events: bool,
        on_progress: Optional[Callable[[Dict[str, Any]], None]],
        timeout: Optional[float],
    ) -> Dict[str, Any]:
        last: List[Optional[Mapping[str, Any]]] = [None]

        def report(update: Mapping[str, Any]) -> None:
            if changed(last[0], update):
                last[0] = update
                if on_progress:
                    on_progress(dict(update))

        if events:
            try:
                idle = 60.0 if timeout is None else max(0.5, min(60.0, timeout))
                async for ev in self.task_events(task_id, idle_timeout=idle):
                    report(ev.data)
                    if ev.event == "done":
                        return ev.data
            except (EventStreamUnavailable, ApiConnectionError):
                pass
        watching = on_progress is not None
        etag: Optional[str] = None
        current: Optional[Dict[str, Any]] = None
        pause = interval
        hold = None if watching else (HELD_READ_SECONDS if timeout is None else max(1, min(HELD_READ_SECONDS, int(timeout))))
        while True:
            got = await self.get_task_if_changed(task_id, etag if current else None, prefer_wait=hold)
            etag = got.etag
            if got.task is not None:
                current = got.task
            if current is not None:
                report(current)
                if is_terminal(current.get("status")):
                    return current
            if not got.waited:
                await self.sleep(max(pause, got.retry_after or 0))
                pause = min(3.0 if watching else 5.0, pause * 1.5)

    # -----------------------------------------------------------------------------------------
    # Downloads

    async def _open_artifact(self, a: Mapping[str, Any]) -> Answer:
        signed = live_signed_url(a, time.time())
        if signed:
            try:
                h = self.build_headers(authenticate=False, accept="*/*")
                return await self.send("GET", self.resolve(signed), h, stream=True)
            except ApiError as e:
                if not (e.status == 404 and a.get("artifact_id")):
                    raise
        if not a.get("artifact_id"):
            raise TypeError("the artifact has neither an id nor a live signed URL")
        return await self.call("downloadArtifact", path_params={"artifact_id": a["artifact_id"]}, accept="*/*", stream=True)

    async def download(self, artifact: Any, path: Optional[str] = None) -> Any:
        """An artifact's bytes, or, with `path`, a SavedFile (see Client.download)."""
        a: Dict[str, Any] = {"artifact_id": artifact} if isinstance(artifact, str) else dict(artifact)
        for attempt in range(BODY_RETRIES + 1):
            answer = await self._open_artifact(a)
            content_type = answer.headers.get("content-type") or a.get("content_type") or "application/octet-stream"
            try:
                if path is None:
                    chunks = []
                    while True:
                        chunk = await _in_thread(_http.read_chunk, answer.raw)
                        if not chunk:
                            break
                        chunks.append(chunk)
                    return b"".join(chunks)
                return SavedFile(path, content_type, await self._save(answer.raw, path))
            except (ConnectionError, socket.timeout, http.client.HTTPException) as e:
                if attempt >= BODY_RETRIES:
                    what = a.get("artifact_id") or "the artifact"
                    raise ApiConnectionError(f"the download of {what} broke off: {e}") from e
            finally:
                _http.close(answer.raw)
        raise AssertionError("unreachable")

    @staticmethod
    async def _save(raw: Any, path: str) -> int:
        directory = os.path.dirname(os.path.abspath(path))
        fd, partial = tempfile.mkstemp(prefix=os.path.basename(path) + ".part-", dir=directory)
        total = 0
        try:
            with os.fdopen(fd, "wb") as out:
                while True:
                    chunk = await _in_thread(_http.read_chunk, raw)
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

    async def download_outputs(self, task: Any, directory: str = ".", *, name: Optional[str] = None) -> List[SavedFile]:
        envelope = await self.get_task(task) if isinstance(task, str) else task
        os.makedirs(directory, exist_ok=True)
        saved = []
        stem = name or envelope.get("task_id", "output")
        for i, a in enumerate(artifacts_of(envelope)):
            index = a.get("index", i)
            path = os.path.join(directory, f"{stem}-{index}{extension_for(a.get('content_type'))}")
            saved.append(await self.download(a, path))
        return saved

    # -----------------------------------------------------------------------------------------
    # Chat

    async def chat_stream(self, body: Mapping[str, Any], **options: Any) -> AsyncIterator[Dict[str, Any]]:
        """Streamed chat completion chunks, as an async iterator (await the call, then `async for`)."""
        answer = await self.call("createChatCompletion", dict(body), accept="text/event-stream", stream=True, **options)
        return _chat_chunks(answer)


async def _chat_chunks(answer: Answer) -> AsyncIterator[Dict[str, Any]]:
    parser = SSEParser()
    try:
        while True:
            chunk = await _in_thread(_http.read_chunk, answer.raw)
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
