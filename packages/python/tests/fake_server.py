"""A scripted HTTP server on 127.0.0.1 (standard library): each request takes the next answer of
its script and is recorded (method, path, headers, body)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional


class Reply:
    def __init__(self, status: int, body: Any = None, headers: Optional[Dict[str, str]] = None, raw: Optional[bytes] = None,
                 drop: bool = False, chunks: Optional[List[bytes]] = None):
        self.status = status
        self.headers = dict(headers or {})
        self.drop = drop
        self.chunks = chunks
        if raw is not None:
            self.body = raw
        elif body is None:
            self.body = b""
        else:
            self.body = json.dumps(body).encode()
            self.headers.setdefault("Content-Type", "application/json")


def error(status: int, code: str, retryable: bool, **extra: Any) -> Dict[str, Any]:
    return {"error": {"code": code, "type": "api_error", "message": f"{code} happened", "retryable": retryable,
                      "request_id": f"req_{code}", **extra}}


class FakeServer:
    def __init__(self, script: List[Reply]):
        self.script = list(script)
        self.requests: List[Dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                fake.requests.append({"method": self.command, "path": self.path,
                                      "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                reply = fake.script.pop(0) if fake.script else Reply(500, error(500, "script_ended", False))
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.send_response(reply.status)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                if reply.chunks is not None:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for c in reply.chunks:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(c), c))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> "FakeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
