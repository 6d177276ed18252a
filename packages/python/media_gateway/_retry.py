"""Backoff between attempts (exponential with jitter, or the server's Retry-After) and the one
retry loop both clients drive: `plan()` yields what to do next and is told what happened.

The rules are the TypeScript client's (packages/client/src/transport.ts, retry.ts):
- an error response is tried again when its error object says `retryable` (without one: 408,
  429 and 5xx other than 501), after its `Retry-After` or the backoff, at most `max_retries`
  times; a Retry-After longer than `max_retry_after` is not waited for;
- a call that got no response (or whose answer broke off) is tried again only when repeating it
  cannot do the work twice: GET/HEAD/DELETE/PUT/OPTIONS, and calls carrying an Idempotency-Key,
  which is made once and sent on every attempt.
"""

import random as _random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Callable, Generator, Optional, Union

from ._errors import ApiConnectionError, ApiError, error_object_of

#: Methods whose repetition changes nothing even without an Idempotency-Key.
REPEATABLE = frozenset({"GET", "HEAD", "DELETE", "PUT", "OPTIONS"})


@dataclass
class RetryPolicy:
    #: Attempts after the first.
    max_retries: int = 3
    #: First backoff in seconds, doubled per attempt up to `max_delay`.
    base_delay: float = 0.5
    max_delay: float = 8.0
    #: A Retry-After longer than this is not waited for: the error goes to the caller.
    max_retry_after: float = 60.0


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """`Retry-After` as seconds from now: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    v = value.strip()
    try:
        if v and all(c.isdigit() or c == "." for c in v) and v.count(".") <= 1:
            return round(float(v), 3)
        at = parsedate_to_datetime(v).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


def backoff_delay(attempt: int, policy: RetryPolicy, random: Callable[[], float] = _random.random) -> float:
    """Attempt `attempt` (0-based) waits between half and all of the capped exponential delay."""
    ceiling = min(policy.max_delay, policy.base_delay * 2**attempt)
    return ceiling * (0.5 + random() * 0.5)


class NoResponse(Exception):
    """An attempt got no (whole) response: refused, reset, timed out, or its body broke off."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Answer:
    """What an attempt got: the status, the headers (lower-case names) and, when read, the body."""

    status: int
    headers: dict
    body: Optional[bytes]
    #: The unread response (streams and downloads), for the caller to read and close.
    raw: object = None


@dataclass
class Sleep:
    seconds: float


@dataclass
class Attempt:
    number: int


Step = Union[Attempt, Sleep]


def plan(
    method: str,
    url: str,
    *,
    idempotency_key: Optional[str],
    policy: RetryPolicy,
    max_retries: Optional[int],
    ok_statuses: tuple = (),
    random: Callable[[], float] = _random.random,
) -> Generator[Step, Union[Answer, NoResponse, None], Answer]:
    """The retry loop: yields Attempt (send, then the Answer or NoResponse) and Sleep steps; returns the Answer."""
    retries = policy.max_retries if max_retries is None else max_retries
    repeatable = method.upper() in REPEATABLE or bool(idempotency_key)
    attempt = 0
    while True:
        outcome = yield Attempt(attempt)
        if isinstance(outcome, NoResponse):
            if repeatable and attempt < retries:
                yield Sleep(backoff_delay(attempt, policy, random))
                attempt += 1
                continue
            tries = f" after {attempt + 1} attempts" if attempt else ""
            raise ApiConnectionError(f"{method} {url} {outcome.reason}{tries}")
        assert isinstance(outcome, Answer)
        if 200 <= outcome.status < 300 or outcome.status in ok_statuses:
            return outcome
        retry_after = parse_retry_after(outcome.headers.get("retry-after"))
        error = error_object_of(outcome.status, outcome.body or b"", outcome.headers)
        wait = retry_after if retry_after is not None else backoff_delay(attempt, policy, random)
        if error.get("retryable") and attempt < retries and wait <= policy.max_retry_after:
            yield Sleep(wait)
            attempt += 1
            continue
        raise ApiError(outcome.status, error, retry_after=retry_after, headers=outcome.headers)
