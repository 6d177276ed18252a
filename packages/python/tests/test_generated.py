"""The generated operation table: its shape, and the generator's staleness check."""

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from media_gateway import OPERATIONS, operation_for_capability
from media_gateway import _operations as generated

GENERATOR = Path(__file__).resolve().parent.parent / "scripts" / "generate.py"
MODULE = Path(generated.__file__)


def run(*args):
    return subprocess.run([sys.executable, str(GENERATOR), *args], capture_output=True, text=True)


def test_the_table_describes_the_operations_the_client_calls():
    op = OPERATIONS["createImageGeneration"]
    assert (op.method, op.path, op.idempotency_key, op.creates_task) == ("POST", "/v1/images/generations", True, True)
    assert op.body == "ImageGenerationRequest" and op.result == "TaskEnvelope"
    assert OPERATIONS["getTask"].path_params == ("task_id",) and not OPERATIONS["getTask"].creates_task
    assert OPERATIONS["createChatCompletion"].idempotency_key is False
    assert operation_for_capability("text_to_video") == "createVideoFromText"
    # Every operation that creates a task takes an Idempotency-Key.
    assert all(o.idempotency_key for o in OPERATIONS.values() if o.creates_task)
    for name in ("TaskEnvelope", "ErrorEnvelope", "Quote", "ChatCompletion", "ModelList", "Balance"):
        assert hasattr(generated, name), name


def test_the_generator_reports_a_stale_module(tmp_path):
    doc = {
        "openapi": "3.1.0",
        "info": {"version": "1"},
        "paths": {"/v1/things/{id}": {"get": {"operationId": "getThing", "parameters": [{"in": "path", "name": "id"}],
                                               "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}}},
        "components": {"schemas": {"Thing": {"type": "object", "properties": {"id": {"type": "string"}, "from": {"type": ["integer", "null"]}}, "required": ["id"]}}},
    }
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps(doc))
    out = tmp_path / "ops.py"
    assert run("--openapi", str(spec), "--out", str(out)).returncode == 0
    assert run("--openapi", str(spec), "--out", str(out), "--check").returncode == 0
    namespace = {}
    exec(out.read_text(), namespace)  # noqa: S102 (the module just written)
    assert namespace["OPERATIONS"]["getThing"].path_params == ("id",)
    out.write_text(out.read_text().replace('"getThing"', '"getThingRenamed"'))
    result = run("--openapi", str(spec), "--out", str(out), "--check")
    assert result.returncode == 1
    assert "stale" in result.stderr and "generate.py" in result.stderr


@pytest.mark.integration
def test_the_committed_module_matches_the_servers_openapi_document(server, tmp_path):
    """What the Worker serves at /openapi.json today gives exactly the committed module."""
    with urllib.request.urlopen(server["base"].rstrip("/") + "/openapi.json", timeout=60) as res:
        (tmp_path / "openapi.json").write_bytes(res.read())
    result = run("--openapi", str(tmp_path / "openapi.json"), "--out", str(MODULE), "--check")
    assert result.returncode == 0, result.stderr
