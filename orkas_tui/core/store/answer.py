"""The model's answer as typed data: every field's type is checked before any code uses it.

The answer is untrusted (the model read transcripts that anyone may have written), so
it is validated against pydantic models of the spec's reflection output: a
discriminated union on ``op``. The envelope (``summary``, ``operations``) must be
right for the answer to count; each operation is validated on its own, so one bad
operation is marked invalid with its reason while the others stay reviewable.
:func:`answer_schema` is the JSON schema of a well-formed answer and
:func:`response_format` the request field that asks a provider's structured-output
mode for it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from orkas_tui.core.read.workspace import SLUG
from orkas_tui.core.store.notes import NOTES
from orkas_tui.core.store.skills import MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS

_SLUG = Field(json_schema_extra={"pattern": SLUG.pattern})


class _Op(BaseModel):
    # extra keys are dropped: only the fields below are ever stored or used
    model_config = ConfigDict(extra="ignore", frozen=True)
    # the ids of the bundle's lines the operation rests on (core/store/provenance.py checks them)
    sources: list[StrictStr] = Field(default_factory=list, json_schema_extra={"maxItems": 64})


class CreateSkill(_Op):
    op: Literal["create_skill"]
    name: StrictStr = Field(json_schema_extra={"maxLength": MAX_NAME_CHARS})
    description: StrictStr = Field(json_schema_extra={"maxLength": MAX_DESCRIPTION_CHARS})
    body: StrictStr


class PatchSkill(_Op):
    op: Literal["patch_skill"]
    skill: StrictStr = _SLUG
    find: StrictStr
    replace: StrictStr


class DeleteSkill(_Op):
    op: Literal["delete_skill"]
    skill: StrictStr = _SLUG
    reason: StrictStr


class UpdateSelf(_Op):
    op: Literal["update_self"]
    note: Literal[NOTES]  # type: ignore[valid-type]
    content: StrictStr


Operation = Annotated[CreateSkill | PatchSkill | DeleteSkill | UpdateSelf, Field(discriminator="op")]
KINDS = ("create_skill", "patch_skill", "delete_skill", "update_self")
_OPERATION = TypeAdapter(Operation)


class ReflectionAnswer(BaseModel):
    """A well-formed answer, as a structured-output schema would require it."""

    model_config = ConfigDict(extra="ignore")
    summary: StrictStr
    operations: list[Operation]


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: StrictStr = ""
    operations: list[Any]


SCHEMA_NAME = "reflection_answer"


def answer_schema() -> dict:
    return ReflectionAnswer.model_json_schema()


def response_format() -> dict:
    """litellm's (OpenAI's) ``response_format`` for :func:`answer_schema`. Not ``strict``: strict
    mode takes only a subset of JSON schema (no ``oneOf``), and every answer is validated here anyway."""
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": answer_schema(), "strict": False}}


def parse_envelope(value: object) -> tuple[str, list[object]] | str:
    """``(summary, raw operations)``, or why the answer is not the expected object."""
    if not isinstance(value, dict):
        return "the reply is JSON but not an object"
    try:
        envelope = _Envelope.model_validate(value)
    except ValidationError as exc:
        field = exc.errors()[0]["loc"][0]
        return '"summary" must be a string' if field == "summary" else 'the reply has no "operations" list'
    return envelope.summary, envelope.operations


def parse_operation(raw: object) -> dict | str:
    """The operation with exactly its spec fields, each of its spec type, or why not."""
    if not isinstance(raw, dict):
        return "an operation must be a JSON object"
    kind = raw.get("op")
    if not isinstance(kind, str) or kind not in KINDS:
        shown = repr(kind) if len(repr(kind)) <= 80 else repr(kind)[:77] + "..."
        return f"unknown op {shown} (one of {', '.join(KINDS)})"
    try:
        return _OPERATION.validate_python(raw).model_dump()
    except ValidationError as exc:
        return f"{kind}: " + _reason(exc.errors(), raw)


def _reason(errors: list[ErrorDetails], raw: dict) -> str:
    fields = [str(e["loc"][1]) for e in errors if len(e["loc"]) > 1]
    if all(e["type"] in ("missing", "string_type") for e in errors):
        return f"missing or non-string field(s): {', '.join(dict.fromkeys(fields))}"
    first = errors[0]
    if fields and fields[0] == "note" and first["type"] == "literal_error":
        shown = repr(raw.get("note"))[:80]
        return f"unknown note {shown} (one of {', '.join(NOTES)})"
    return f"{fields[0] if fields else 'operation'}: {first['msg']}"
