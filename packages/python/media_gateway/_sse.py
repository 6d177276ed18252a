"""A server-sent events parser following the HTML standard's rules, fed bytes as they arrive.

Lines end with CR, LF or CRLF (also split across chunks); `:` lines are comments; `data` lines
join with "\\n"; `id` persists until changed (ignored when it holds NUL); `retry` takes digits
only; an event is dispatched at a blank line and an unfinished one at the end is dropped.
"""

import codecs
from dataclasses import dataclass
from typing import List, Optional


@dataclass
class ServerSentEvent:
    #: `message` when the event named no type.
    event: str
    data: str
    #: The last event id seen so far on this stream (what `Last-Event-ID` resumes from).
    id: Optional[str]
    #: A reconnection delay the server asked for, in milliseconds.
    retry: Optional[int]


class SSEParser:
    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = ""
        self._first = True
        self._type = ""
        self._data: List[str] = []
        self.last_id: Optional[str] = None
        self.retry: Optional[int] = None

    def feed(self, chunk: bytes, final: bool = False) -> List[ServerSentEvent]:
        self._buffer += self._decoder.decode(chunk, final)
        if self._first and self._buffer:
            if self._buffer[0] == "\ufeff":
                self._buffer = self._buffer[1:]
            self._first = False
        events: List[ServerSentEvent] = []
        buf = self._buffer
        start = 0
        i = 0
        while i < len(buf):
            c = buf[i]
            if c not in "\r\n":
                i += 1
                continue
            # A CR at the very end may be the first half of a CRLF the next chunk completes.
            if c == "\r" and i == len(buf) - 1 and not final:
                break
            event = self._line(buf[start:i])
            if event is not None:
                events.append(event)
            if c == "\r" and i + 1 < len(buf) and buf[i + 1] == "\n":
                i += 1
            i += 1
            start = i
        self._buffer = buf[start:]
        return events

    def close(self) -> List[ServerSentEvent]:
        return self.feed(b"", final=True)

    def _line(self, line: str) -> Optional[ServerSentEvent]:
        if line == "":
            kind = self._type or "message"
            self._type = ""
            if not self._data:
                return None
            event = ServerSentEvent(kind, "\n".join(self._data), self.last_id, self.retry)
            self._data = []
            return event
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._type = value
        elif name == "id":
            if "\0" not in value:
                self.last_id = value
        elif name == "retry":
            if value.isdigit():
                self.retry = int(value)
        return None
