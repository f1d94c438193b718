"""The SDKs' request TypedDicts, introspected: which type each request shape is, and a
TypedDict's fields with their requiredness (shared by the live check,
:mod:`.sdk_types`, and its compiled data, :mod:`.type_tree`).

>>> from typing import NotRequired, Required, TypedDict
>>> Body = TypedDict("Body", {"model": Required[str], "stream": NotRequired[bool]}, total=False)
>>> typeddict_fields(Body)[1]
frozenset({'model'})
"""

from __future__ import annotations

import typing
from functools import cache
from typing import Any, get_args, get_origin

import typing_extensions

__all__ = ["REQUEST_TYPES", "is_typeddict", "type_name", "typeddict_fields", "unwrap"]

# Each shape's request type: (module, TypedDict). ``anthropic-beta`` is the Messages
# request with the beta features a client turns on with its ``anthropic-beta`` header
# (Claude Code's ``context_management``, ``output_config`` on a system message ...).
REQUEST_TYPES = {
    "anthropic": ("anthropic.types.message_create_params", "MessageCreateParamsNonStreaming"),
    "anthropic-beta": (
        "anthropic.types.beta.message_create_params",
        "MessageCreateParamsNonStreaming",
    ),
    "openai": ("openai.types.chat.completion_create_params", "CompletionCreateParamsNonStreaming"),
    "openai-responses": (
        "openai.types.responses.response_create_params",
        "ResponseCreateParamsNonStreaming",
    ),
}
_WRAPPERS = {"Required", "NotRequired", "ReadOnly"}


def type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp)


def unwrap(tp: Any) -> tuple[Any, bool | None]:
    """The type inside Required/NotRequired/Annotated, and the requiredness they say."""
    required: bool | None = None
    while True:
        origin = get_origin(tp)
        name = getattr(origin, "_name", None) or getattr(origin, "__name__", None)
        if origin is typing.Annotated:
            tp = get_args(tp)[0]
        elif name in _WRAPPERS:
            required = name == "Required" if required is None else required
            tp = get_args(tp)[0]
        else:
            return tp, required


@cache
def typeddict_fields(td: type) -> tuple[dict[str, Any], frozenset[str]]:
    hints = typing.get_type_hints(td, include_extras=True)
    total = getattr(td, "__total__", True)
    found: dict[str, Any] = {}
    required: set[str] = set()
    for key, hint in hints.items():
        inner, req = unwrap(hint)
        found[key] = inner
        if req if req is not None else total:
            required.add(key)
    return found, frozenset(required)


def is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing_extensions.is_typeddict(tp)
