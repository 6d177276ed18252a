"""Against the real service (the Worker under `wrangler dev`), with its sandbox serving the models:
MEDIA_API_BASE_URL and MEDIA_API_KEY name it. `npm test` runs these through test/e2e/python-client.test.ts."""

import asyncio
import uuid

import pytest

from media_gateway import ApiError, AsyncClient, Client, output_artifacts

pytestmark = pytest.mark.integration

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture()
def client(server):
    return Client(base_url=server["base"], api_key=server["key"])


def test_an_image_task_waited_on_by_its_events_and_downloaded(client, tmp_path):
    task = client.images.generate(prompt="a red fox in the snow", metadata={"suite": "python"})
    assert task["object"] == "task" and task["status"] in ("queued", "running", "succeeded")
    seen = []
    done = client.wait(task, timeout=120, on_progress=seen.append)
    assert done["status"] == "succeeded", done.get("error")
    assert seen[-1]["status"] == "succeeded"
    saved = client.download_outputs(done, str(tmp_path))
    assert len(saved) == len(output_artifacts(done)) >= 1
    assert saved[0].path.endswith(".png") and saved[0].content_type == "image/png"
    data = open(saved[0].path, "rb").read()
    assert data.startswith(PNG) and len(data) == saved[0].bytes
    # The same bytes with the key, by artifact id (no signed URL).
    assert client.artifacts.download(output_artifacts(done)[0]["artifact_id"]) == data


def test_the_event_stream_ends_with_done(client):
    task = client.images.generate(prompt="a lighthouse")
    events = list(client.tasks.events(task))
    assert events[-1].event == "done" and events[-1].data["task_id"] == task["task_id"]
    assert events[-1].data["status"] == "succeeded"


def test_an_image_task_waited_on_by_reads(client):
    task = client.images.generate({"prompt": "a quiet harbour"})
    done = client.wait(task["task_id"], timeout=120, events=False)
    assert done["status"] == "succeeded"
    got = client.tasks.get_if_changed(task["task_id"])
    assert got.task["task_id"] == task["task_id"] and got.etag
    assert client.tasks.get_if_changed(task["task_id"], got.etag).task is None  # 304: unchanged


def test_a_chat_completion_and_a_streamed_one(client):
    messages = [{"role": "user", "content": "Say hello"}]
    answer = client.chat.completions.create(model="auto", messages=messages)
    assert answer["object"] == "chat.completion"
    text = answer["choices"][0]["message"]["content"]
    assert text
    chunks = list(client.chat.completions.create(model="auto", messages=messages, stream=True))
    assert chunks and all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == text


def test_an_error_envelope_with_its_param(client):
    with pytest.raises(ApiError) as info:
        client.images.generate(prompt="a fox", n=3)
    e = info.value
    assert (e.status, e.code, e.type, e.retryable, e.param) == (422, "invalid_request", "invalid_request_error", False, "/n")
    assert e.request_id and e.request_id.startswith("req_")
    with pytest.raises(ApiError) as missing:
        client.tasks.get("task_" + "0" * 64)
    assert missing.value.status == 404 and missing.value.code == "task_not_found"


def test_an_idempotency_key_replays_the_same_task(client):
    key = f"python-{uuid.uuid4()}"
    first = client.images.generate(prompt="the same fox", idempotency_key=key)
    again = client.images.generate(prompt="the same fox", idempotency_key=key)
    assert again["task_id"] == first["task_id"]
    with pytest.raises(ApiError) as info:
        client.images.generate(prompt="another fox", idempotency_key=key)
    assert info.value.code == "idempotency_conflict" and info.value.status == 409


def test_quotes_models_balance_and_tasks(client):
    models = client.models.list()
    assert models["object"] == "list" and models["data"]
    assert client.balance.get()["object"] == "balance"
    quote = client.quotes.create("text_to_image", {"prompt": "a fox"})
    assert quote["object"] == "quote" and quote["operation"] == "text_to_image"
    page = client.tasks.list(limit=2)
    assert page["object"] == "list" and len(page["data"]) <= 2
    generic = client.request("getTask", path_params={"task_id": page["data"][0]["task_id"]})
    assert generic["object"] == "task"


def test_the_async_client(server, tmp_path):
    async def main():
        async with AsyncClient(base_url=server["base"], api_key=server["key"]) as c:
            video = await c.videos.from_text(prompt="waves at dusk", duration=5)
            image = await c.images.generate(prompt="a fox")
            voices = await c.voices.list()
            speech = await c.audio.speech(input="Hello from Python", voice=voices["data"][0]["voice_id"])
            done = await asyncio.gather(
                c.wait(video, timeout=180), c.wait(image, timeout=120, events=False), c.wait(speech, timeout=120)
            )
            assert [t["status"] for t in done] == ["succeeded"] * 3, [t.get("error") for t in done]
            saved = await c.download_outputs(done[0], str(tmp_path))
            assert saved[0].path.endswith(".mp4") and saved[0].bytes > 0
            stream = await c.chat.completions.create(model="auto", messages=[{"role": "user", "content": "hi"}], stream=True)
            chunks = [chunk async for chunk in stream]
            assert chunks
            with pytest.raises(ApiError) as info:
                await c.request("createImageGeneration", {"prompt": ""})
            assert info.value.param == "/prompt"

    asyncio.run(main())
