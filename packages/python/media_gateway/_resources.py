"""The convenient methods, grouped as the API's tags are: `client.images.generate(prompt=...)`.

Each method calls the client's generic `request()` (or its waiting, streaming and downloading
helpers), so the same groups serve `Client` (answers) and `AsyncClient` (awaitables and async
iterators). Create methods take the body as a dict, as keyword fields, or both (the fields win),
and an optional `idempotency_key` (made once per call and kept across its retries otherwise).
"""

from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional

from ._base import TaskRef, merge_body, task_id_of

if TYPE_CHECKING:  # pragma: no cover
    from ._operations import (
        Balance,
        ChatCompletion,
        ModelDetail,
        ModelList,
        Quote,
        TaskEnvelope,
        TaskPage,
        UsageReport,
    )

Body = Optional[Mapping[str, Any]]


class _Group:
    def __init__(self, client: Any) -> None:
        self._c = client

    def _create(self, operation_id: str, body: Body, fields: Dict[str, Any]) -> "TaskEnvelope":
        idempotency_key = fields.pop("idempotency_key", None)
        prefer_wait = fields.pop("prefer_wait", None)
        return self._c.create(operation_id, merge_body(body, fields), idempotency_key=idempotency_key, prefer_wait=prefer_wait)


class Images(_Group):
    def generate(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Text to 1 to 4 images: `generate(prompt="a red fox in the snow")`."""
        return self._create("createImageGeneration", body, fields)

    def edit(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Edits images by a prompt: `edit(prompt=..., images=[{"type": "url", "url": ...}])`."""
        return self._create("createImageEdit", body, fields)

    def from_images(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Image to image."""
        return self._create("createImageFromImages", body, fields)

    def describe(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Image to text."""
        return self._create("createImageUnderstanding", body, fields)


class Videos(_Group):
    def from_text(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Text to video: `from_text(prompt="waves at dusk", duration=5)`."""
        return self._create("createVideoFromText", body, fields)

    generate = from_text

    def from_image(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Image to video: `from_image(image={"type": "url", "url": ...}, prompt=...)`."""
        return self._create("createVideoFromImage", body, fields)

    def from_references(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        return self._create("createVideoFromReferences", body, fields)

    def from_frames(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        return self._create("createVideoFromFrames", body, fields)

    def extend(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        return self._create("createVideoExtension", body, fields)

    def describe(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        return self._create("createVideoUnderstanding", body, fields)

    def enhance_prompt(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        return self._create("createVideoPromptEnhancement", body, fields)


class Audio(_Group):
    def speech(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Text to speech: `speech(input="Hello", voice="<voice_id from voices.list()>")`."""
        return self._create("createSpeech", body, fields)


class Music(_Group):
    def generate(self, body: Body = None, **fields: Any) -> "TaskEnvelope":
        """Text to music: `generate(prompt="calm piano", duration=30)`."""
        return self._create("createMusicFromText", body, fields)


class Tasks(_Group):
    def get(self, task: TaskRef, *, prefer_wait: Optional[float] = None) -> "TaskEnvelope":
        """The task's envelope; `prefer_wait` lets the server hold the answer up to that many seconds for it to end."""
        return self._c.get_task(task, prefer_wait=prefer_wait)

    def get_if_changed(self, task: TaskRef, etag: Optional[str] = None, *, prefer_wait: Optional[float] = None) -> Any:
        """A conditional read (`If-None-Match`): ConditionalTask(task=None, ...) while unchanged."""
        return self._c.get_task_if_changed(task, etag, prefer_wait=prefer_wait)

    def list(self, **query: Any) -> "TaskPage":
        """A page of tasks, newest first: `list(status="succeeded", limit=20, cursor=...)`."""
        return self._c.request("listTasks", query=query)

    def cancel(self, task: TaskRef, body: Body = None) -> "TaskEnvelope":
        return self._c.request("cancelTask", dict(body or {}), path_params={"task_id": task_id_of(task)})

    def delete_outputs(self, task: TaskRef) -> "TaskEnvelope":
        return self._c.request("deleteTaskOutputs", path_params={"task_id": task_id_of(task)})

    def assets(self, task: TaskRef) -> Any:
        return self._c.request("listTaskAssets", path_params={"task_id": task_id_of(task)})

    def events(self, task: TaskRef, *, last_event_id: Optional[str] = None) -> Any:
        """The task's events (`status`, `progress`, then `done`), resumed with Last-Event-ID when the stream drops."""
        return self._c.task_events(task, last_event_id=last_event_id)

    def wait(self, task: TaskRef, **options: Any) -> "TaskEnvelope":
        """The final envelope once the task ends (see Client.wait)."""
        return self._c.wait(task, **options)

    def download_outputs(self, task: TaskRef, directory: str = ".", **options: Any) -> Any:
        """Saves every output file of a task into `directory`; answers the saved files."""
        return self._c.download_outputs(task, directory, **options)


class Artifacts(_Group):
    def download(self, artifact: Any, path: Optional[str] = None) -> Any:
        """An artifact's bytes (through its signed URL when live, else with the key); saved to `path` when given."""
        return self._c.download(artifact, path)

    def delete(self, artifact_id: str) -> Any:
        return self._c.request("deleteArtifact", path_params={"artifact_id": artifact_id})


class Uploads(_Group):
    def create(self, data: bytes, content_type: str = "application/octet-stream") -> Any:
        """Uploads bytes as an artifact to use as an input: `{"type": "artifact", "artifact_id": ...}`."""
        return self._c.request("createUpload", data=data, content_type=content_type)


class Quotes(_Group):
    def create(self, operation: str, request: Mapping[str, Any]) -> "Quote":
        """A binding price for a create before making it: `create("text_to_video", {...})`."""
        return self._c.request("createQuote", {"operation": operation, "request": dict(request)})


class Models(_Group):
    def list(self) -> "ModelList":
        return self._c.request("listModels")

    def get(self, model: str) -> "ModelDetail":
        return self._c.request("getModel", path_params={"model": model})


class Voices(_Group):
    def list(self, **query: Any) -> Any:
        return self._c.request("listVoices", query=query)

    def get(self, voice_id: str) -> Any:
        return self._c.request("getVoice", path_params={"voice_id": voice_id})


class Balance(_Group):
    def get(self) -> "Balance":
        return self._c.request("getBalance")


class Usage(_Group):
    def get(self, **query: Any) -> "UsageReport":
        return self._c.request("getUsage", query=query)


class Completions(_Group):
    def create(self, body: Body = None, **fields: Any) -> "ChatCompletion":
        """OpenAI-compatible: `create(model="auto", messages=[...])`; with `stream=True` an iterator of chunks."""
        payload = merge_body(body, fields)
        if payload.get("stream"):
            return self._c.chat_stream(payload)
        return self._c.request("createChatCompletion", payload)


class Chat(_Group):
    def __init__(self, client: Any) -> None:
        super().__init__(client)
        self.completions = Completions(client)


class Resources:
    """The groups, set on a client."""

    def _attach(self) -> None:
        self.images = Images(self)
        self.videos = Videos(self)
        self.audio = Audio(self)
        self.music = Music(self)
        self.tasks = Tasks(self)
        self.artifacts = Artifacts(self)
        self.uploads = Uploads(self)
        self.quotes = Quotes(self)
        self.models = Models(self)
        self.voices = Voices(self)
        self.balance = Balance(self)
        self.usage = Usage(self)
        self.chat = Chat(self)
