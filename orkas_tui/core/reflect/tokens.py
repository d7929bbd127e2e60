"""Token counting with tiktoken's ``cl100k_base``, loaded offline.

tiktoken downloads its BPE file on first use; litellm ships that file under
tiktoken's cache name. Pointing ``TIKTOKEN_CACHE_DIR`` at litellm's folder (found
without importing litellm, which is slow and would start network work) makes the
encoding load in milliseconds with no network.
"""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path

ENCODING = "cl100k_base"
CL100K_CACHE_NAME = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"


def litellm_tokenizer_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return folder if (folder / CL100K_CACHE_NAME).is_file() else None


@lru_cache(maxsize=1)
def encoding():
    folder = litellm_tokenizer_dir()
    if folder is not None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of ``text`` that encodes to at most ``limit`` tokens."""
    ids = encoding().encode(text, disallowed_special=())
    if len(ids) <= limit:
        return text
    prefix = encoding().decode(ids[: max(0, limit)])
    while prefix and count_tokens(prefix) > limit:
        prefix = prefix[:-1]
    return prefix


def cut_middle_to_tokens(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` tokens, keeping its head and its tail, the cut marked in the middle."""
    ids = encoding().encode(text, disallowed_special=())
    if len(ids) <= limit:
        return text
    keep = max(0, limit - count_tokens(f"\n[… {len(ids):,} tokens cut …]\n") - 2)
    while True:
        head, tail = keep - keep // 2, keep // 2
        marker = f"\n[… {len(ids) - keep:,} tokens cut …]\n"
        cut = encoding().decode(ids[:head]) + marker + (encoding().decode(ids[-tail:]) if tail else "")
        if count_tokens(cut) <= limit or keep == 0:
            return cut if count_tokens(cut) <= limit else truncate_to_tokens(marker.strip(), limit)
        keep -= max(1, count_tokens(cut) - limit)
