"""One HTTP attempt over urllib (standard library only), blocking; both clients call it."""

import http.client
import socket
import urllib.error
import urllib.request
from typing import Dict, Optional

from ._retry import Answer, NoResponse

_opener = urllib.request.build_opener()


def attempt(
    method: str,
    url: str,
    headers: Dict[str, str],
    data: Optional[bytes],
    timeout: Optional[float],
    stream: bool,
) -> Answer:
    """Sends once. A 2xx answer of a `stream` call comes back unread (`raw`); any other is read whole."""
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        res = _opener.open(req, timeout=timeout)
    except urllib.error.HTTPError as e:
        res = e
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as e:
        reason = getattr(e, "reason", e)
        timed_out = isinstance(reason, (socket.timeout, TimeoutError))
        raise NoResponse(f"{'timed out' if timed_out else 'failed'}: {reason}") from e
    status = int(getattr(res, "status", None) or getattr(res, "code", 0) or 0)
    head = {k.lower(): v for k, v in res.headers.items()} if res.headers is not None else {}
    if stream and 200 <= status < 300:
        return Answer(status, head, None, raw=res)
    try:
        body = res.read()
    except (OSError, http.client.HTTPException) as e:
        raise NoResponse(f"did not arrive whole: {e}") from e
    finally:
        res.close()
    return Answer(status, head, body)


def read_chunk(raw: object, size: int = 65536) -> bytes:
    """The next bytes of an unread answer (b"" at its end), as soon as some arrive."""
    read1 = getattr(raw, "read1", None)
    if read1 is not None:
        return read1(size)
    return raw.read(size)  # type: ignore[attr-defined]


def close(raw: object) -> None:
    try:
        raw.close()  # type: ignore[attr-defined]
    except Exception:
        pass
