"""The Python code generated for a pack's rules, kept on disk beside the compiled-pack cache.

Building an engine turns every expression, comprehension and procedure of the rules into Python
source (interpreter/compiler.py) and hands it to Python's compile(): two thirds of a build, about
a tenth of a second for base_3to5, paid again by every fresh process (`rulespec validate`, each
test worker). The sources depend only on the pack and the engine, so the code objects of the
last build of a pack are kept (marshal, which holds code objects for one Python version) and
loaded into the compiler's memory before the next build of that pack.

An entry is looked up by source text, never by position: a stale file (the pack or the engine
changed) only misses, and the build then compiles what it lacks and writes the file again.
The folder and its trust rules are the compiled-pack cache's (rulespec/packcache.py: off with
`RULESPEC_NO_CACHE=1`, only a folder of the user's own that others cannot write); the payload's
sha256 is checked before anything is loaded, and a file of any other Python version is ignored.
"""
from __future__ import annotations

import hashlib
import json
import marshal
import sys

from rulespec import packcache

MAGIC = b"RULESPEC-CODE-CACHE 1\n"
MAX_ENTRIES = 50_000        # code objects in one file (a pack has about 1,500)


def _file(pack):
    """The pack's file in the cache folder; None when the cache is off, or for a pack in the
    system's temporary folder: those come and go (tests, generated packs), and a file of
    1.5 MB for each would crowd the packs used again and again out of the cache."""
    directory = packcache.cache_dir()
    root = getattr(pack, "root", None)
    if directory is None or (root is not None and packcache.temporary(root)):
        return None
    tag = f"{sys.version}|{getattr(pack, 'id', '')}|{getattr(pack, 'root', '')}"
    return directory / f"code-{hashlib.sha256(tag.encode()).hexdigest()[:32]}.pack"


_WARMED: set = set()        # the files loaded by this process


def warm(pack) -> None:
    """Before the first build of a pack in this process: the code its last build compiled."""
    path = _file(pack)
    if path is None or path in _WARMED:
        return
    _WARMED.add(path)
    from .compiler import remember_code
    remember_code(load(pack))


def load(pack) -> dict:
    """{(source, file name, mode): code object} of the last build of this pack, or {}."""
    path = _file(pack)
    if path is None:
        return {}
    try:
        blob = path.read_bytes()
        if not blob.startswith(MAGIC):
            return {}
        end = blob.index(b"\n", len(MAGIC))
        header = json.loads(blob[len(MAGIC):end])
        payload = blob[end + 1:]
        if header.get("python") != sys.version or header.get("digest") != hashlib.sha256(payload).hexdigest():
            return {}
        entries = marshal.loads(payload)
        return {(src, name, mode): code for src, name, mode, code in entries[:MAX_ENTRIES]}
    except Exception:           # a corrupt or foreign file is a miss, never an error
        return {}


def store(pack, codes: dict) -> bool:
    """Keep the code objects of this build of the pack (those it used, no others)."""
    path = _file(pack)
    if path is None or not codes:
        return False
    try:
        payload = marshal.dumps([(src, name, mode, code) for (src, name, mode), code in codes.items()])
    except ValueError:
        return False
    header = {"python": sys.version, "digest": hashlib.sha256(payload).hexdigest()}
    return packcache.write_atomic(path, MAGIC + json.dumps(header).encode() + b"\n" + payload)
