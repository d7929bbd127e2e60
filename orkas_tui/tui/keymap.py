"""Which ``[keys]`` entries of ``orkas.toml`` can be applied.

An entry is refused, with a message, when its key already belongs to another action that
is active at the same time (one in the same section, or any "Everywhere" key while a pane
or screen is in use): one of the two would silently stop working. An entry that would
leave no key at all to quit is refused too.
"""

from __future__ import annotations

from textual.binding import Binding

GLOBAL = "Everywhere"


def split_keys(keys: str) -> list[str]:
    return [k.strip() for k in keys.split(",") if k.strip()]


def check_keymap(sections: list[tuple[str, list[Binding]]], wanted: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The entries of ``wanted`` (binding id -> keys) that can be applied, and one message per refused entry."""
    keys_of: dict[str, list[str]] = {}
    section_of: dict[str, str] = {}
    description: dict[str, str] = {}
    for section, bindings in sections:
        for binding in bindings:
            if binding.id:
                keys_of[binding.id] = split_keys(binding.key)
                section_of[binding.id] = section
                description[binding.id] = binding.description or binding.id
    known = {b: k for b, k in wanted.items() if b in keys_of}  # unknown ids are reported separately
    wished = {**keys_of, **{b: split_keys(k) for b, k in known.items()}}  # a swap of two keys is no clash
    accepted: dict[str, str] = {}
    refused: list[str] = []
    for binding_id, keys in sorted(known.items()):
        new_keys = split_keys(keys)
        if binding_id == "quit" and not new_keys:
            refused.append(f'quit = "{keys}" refused: it would leave no key to quit')
            continue
        clash = next(
            (
                (other, key)
                for other, others in wished.items()
                if other != binding_id
                for key in new_keys
                if key in others and _overlap(section_of[other], section_of[binding_id])
            ),
            None,
        )
        if clash is not None:
            other, key = clash
            last_quit = " and would leave no key to quit" if other == "quit" and set(wished["quit"]) <= set(new_keys) else ""
            refused.append(f'{binding_id} = "{keys}" refused: {key} is already {description[other]} ({other}){last_quit}')
            continue
        accepted[binding_id] = keys
    return accepted, refused


def _overlap(a: str, b: str) -> bool:
    return a == b or GLOBAL in (a, b)
