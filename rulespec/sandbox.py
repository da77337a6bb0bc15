"""Reading untrusted files: only regular files, of bounded size, inside the folder they belong to.

A pack is a folder somebody shared. Loading it reads the regular files below that folder and
nothing else: a link leading out of the folder, a named pipe, a device or a socket is refused
with RS004 (the file is never opened, so a pipe cannot hang the loader and a link to
/dev/zero cannot fill the memory); a file over its size limit is RS005. Paths written in data
(`extends:`, the `pack` of a scenario) are resolved here too: they must stay inside the
folder that wrote them (RS022).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from . import limits
from .errors import Diagnostic, RulespecError, Span

_KINDS = {stat.S_IFIFO: "a named pipe", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def path_problem(text: str) -> str:
    """Why a path written by a user or in a file is refused before it is looked at ('' if it
    is not): too long, or a name in it too long (the OS would refuse it with an error of its
    own), or a NUL character."""
    if "\x00" in text:
        return "a path cannot contain a NUL character"
    if len(text) > limits.MAX_PATH_CHARS:
        return f"the path is {len(text):,} characters long (at most {limits.MAX_PATH_CHARS:,})"
    for part in text.replace("\\", "/").split("/"):
        if len(part) > limits.MAX_PATH_PART_CHARS:
            return f"a name in the path is {len(part):,} characters long (at most {limits.MAX_PATH_PART_CHARS})"
    return ""


def check_path(text, span: Span | None = None, what: str = "path") -> None:
    """RS005 when a path is too long to be a real one (see path_problem)."""
    why = path_problem(str(text))
    if why:
        shown = str(text)[:60] + ("…" if len(str(text)) > 60 else "")
        raise RulespecError(Diagnostic("RS005", f"{what} '{shown}' refused: {why}", span or Span("<command line>"),
                                       "give a shorter path"))


def inside(path: Path, root: Path) -> bool:
    """`path` (resolved) is `root` (resolved) or below it."""
    try:
        return path == root or path.is_relative_to(root)
    except (ValueError, OSError):
        return False


def read_bytes(path, *, root: Path | None = None, limit: int = limits.MAX_FILE_BYTES,
               what: str = "file") -> bytes:
    """The bytes of a regular file. With `root`, the file (its links followed) must lie inside
    `root`. RS003: it cannot be read (missing, a folder, no permission); RS004: a link leading
    out of `root`, or not a regular file; RS005: larger than `limit` or a path too long. The
    error is at 1:1 of `path`, and never shows anything of a file outside `root`."""
    path = Path(path)
    here = Span(str(path), 1, 1)
    check_path(str(path), here, what)
    try:
        st = os.stat(path)                           # follows links: what would be read
        real = path.resolve()
    except (OSError, RuntimeError) as e:             # RuntimeError: a loop of links (older Pythons)
        raise RulespecError(Diagnostic("RS003", f"cannot read {what}: {getattr(e, 'strerror', None) or e}", here,
                                       "check the path exists and is a readable file")) from None
    if root is not None and not inside(real, Path(root).resolve()):
        raise RulespecError(Diagnostic("RS004", f"{path.name} is a link to a file outside the pack; it is not read",
                                       here, "a pack reads only the files inside its folder: copy the file into "
                                             "the pack instead of linking to it"))
    if stat.S_ISDIR(st.st_mode):
        raise RulespecError(Diagnostic("RS003", f"cannot read {what}: Is a directory", here,
                                       "check the path exists and is a readable file"))
    if not stat.S_ISREG(st.st_mode):
        raise RulespecError(Diagnostic("RS004", f"{path.name} is {_kind(st.st_mode)}, not a regular file; it is not read",
                                       here, "only regular files are read: replace it with a plain file"))
    if st.st_size > limit:
        raise RulespecError(_too_big(path, st.st_size, limit, what))
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        raise RulespecError(Diagnostic("RS003", f"cannot read {what}: {e.strerror or e}", here,
                                       "check the path exists and is a readable file")) from None
    try:
        st = os.fstat(fd)                            # what was opened (it may have changed since)
        if not stat.S_ISREG(st.st_mode):
            raise RulespecError(Diagnostic("RS004", f"{path.name} is {_kind(st.st_mode)}, not a regular file; it is "
                                                    "not read", here, "only regular files are read"))
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise RulespecError(_too_big(path, size, limit, what))
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise RulespecError(Diagnostic("RS003", f"cannot read {what}: {e.strerror or e}", here,
                                       "check the path exists and is a readable file")) from None
    finally:
        os.close(fd)


def _too_big(path: Path, size: int, limit: int, what: str) -> Diagnostic:
    return Diagnostic("RS005", f"{path.name} is larger than {limit // 1024:,} KB ({what}s are limited to "
                               f"{limit:,} bytes); it is not read", Span(str(path), 1, 1),
                      "split it into several files, or make it smaller")


def regular_file_text(path, limit: int = limits.MAX_FILE_BYTES) -> str | None:
    """The text of a file for showing a line of it under a diagnostic, or None: only a regular
    file that is not a link (a link may lead anywhere), within the size limit; never blocks."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = os.read(fd, limit + 1)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    return data[:limit].decode("utf-8", errors="replace")


def pack_files(folder: Path, suffixes=(".yaml", ".rules"), skip=()) -> tuple[list, list]:
    """The files below a pack folder whose names end with one of `suffixes`, sorted, and the
    problems found walking it (RS004: a folder link leading out of the pack; RS005: too many
    files). The sub-folders of `folder` named in `skip` are not entered (a pack's `scenarios/`).
    Links to folders are not followed (a link inside the pack would make its files appear
    twice); links to files are listed, and checked when read (read_bytes)."""
    folder = Path(folder)
    root = folder.resolve()
    found, problems = [], []

    def on_error(_e):
        return None                                  # unreadable sub-folders are skipped, as rglob does

    for dirpath, dirnames, filenames in os.walk(folder, onerror=on_error, followlinks=False):
        here = Path(dirpath)
        if here == folder:
            dirnames[:] = [d for d in dirnames if d not in skip]
        for d in list(dirnames):
            p = here / d
            if d.endswith(tuple(suffixes)):
                found.append(p)                      # a folder named like a file: RS003 when read
            if p.is_symlink():
                try:
                    out = not inside(p.resolve(), root)
                except (OSError, RuntimeError):
                    out = True
                if out:
                    problems.append(Diagnostic("RS004", f"folder {p.relative_to(folder).as_posix()} is a link to a "
                                                        "folder outside the pack; its files are not read",
                                               Span(str(p), 1, 1), "copy the files into the pack instead of linking"))
        for f in filenames:
            if f.endswith(tuple(suffixes)):
                found.append(here / f)
        if len(found) > limits.MAX_PACK_FILES:
            problems.append(Diagnostic("RS005", f"the pack holds more than {limits.MAX_PACK_FILES:,} .yaml and .rules "
                                                "files; the rest are not read", Span(str(folder)),
                                       "merge files: a pack of this size cannot be a set of rules"))
            break
    found = sorted(found)[: limits.MAX_PACK_FILES]
    return found, problems


def relative_inside(text: str, base: Path, root: Path, span: Span, what: str, source_line: str = "") -> Path:
    """A path written in a file of folder `base` (an `extends:`, a scenario's `pack`): relative,
    and once resolved (links followed) inside `root`. RS022 otherwise."""
    hint = (f"write a bundled pack id, or the id of a pack in the search path (--pack-path, "
            f"RULESPEC_PACK_PATH); a path may only lead to a folder inside {root.name}/")
    if os.path.isabs(text) or text.startswith("~") or (len(text) > 1 and text[1] == ":"):
        raise RulespecError(Diagnostic("RS022", f"{what} '{text}' is an absolute path: it would read outside the "
                                                "folder", span, hint, source_line=source_line))
    try:
        real = (base / text).resolve()
    except (OSError, RuntimeError):
        real = None
    if real is None or not inside(real, root.resolve()):
        raise RulespecError(Diagnostic("RS022", f"{what} '{text}' leads out of {root.name}/: only folders inside "
                                                "it may be named by a path", span, hint, source_line=source_line))
    return real
