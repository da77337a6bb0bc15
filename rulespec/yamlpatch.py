"""Merge a `NAME.patch.yaml` into the base pack's `NAME.yaml`, keeping every value's position.

A patch says only what changes (docs/language.md, "Overlays"):

* mappings merge key by key; a key whose value is `{$remove: true}` is deleted;
* a list whose items all have an `id` is patched by id: each item of the patch changes the
  base item of that id (an unknown id is an error: the patch would otherwise add a new item
  where the author meant to change one); `{id: x, $remove: true}` deletes item x;
* any other list given as a list is replaced whole;
* any list may instead be given a mapping of list operations, so a patch does not have to
  restate a list to add to it:

      roads:
        $remove: [{between: [nice, turin]}]     # the items matching these keys
        $append:
          - {between: [florence, ancona], sides: [side_34, side_25]}

  `$merge: [items]` (lists with ids) changes items by id, like the plain list form. They apply
  in that order: `$remove`, `$merge`, `$append`.

Everything wrong in a patch (an unknown `$key`, an id or a `$remove` item that matches
nothing) is a positioned error in the patch file; the rest of the patch still applies.
"""
from __future__ import annotations

import copy
import difflib
from pathlib import Path

from .errors import Diagnostic, RulespecError, did_you_mean
from .yamldata import YamlDoc

LIST_OPS = ("$remove", "$merge", "$append")     # the keys of a list's patch mapping, in the order applied
PATCH_KEYS = ("$append", "$remove", "$merge")   # every `$key` a patch may use (`$remove` also as `$remove: true`)


def is_id(x) -> bool:
    """An id written in YAML: a name or a number (not a list, mapping, bool or null)."""
    return isinstance(x, (str, int, float)) and not isinstance(x, bool)


class _Node:
    """A YAML value with where it was written (value span, key span, scalar record)."""
    __slots__ = ("value", "span", "key_span", "scalar")

    def __init__(self, value, span=None, key_span=None, scalar=None):
        self.value, self.span, self.key_span, self.scalar = value, span, key_span, scalar


def _annotate(doc: YamlDoc, value, path=()) -> _Node:
    if isinstance(value, dict):
        inner = {k: _annotate(doc, v, path + (k,)) for k, v in value.items()}
    elif isinstance(value, list):
        inner = [_annotate(doc, v, path + (i,)) for i, v in enumerate(value)]
    else:
        inner = copy.deepcopy(value)
    return _Node(inner, doc.spans.get(path), doc.key_spans.get(path), doc.scalars.get(path))


def _flatten(node: _Node, path, out: YamlDoc):
    if node.span is not None:
        out.spans[path] = node.span
    if node.key_span is not None:
        out.key_spans[path] = node.key_span
    if node.scalar is not None:
        out.scalars[path] = node.scalar
    if isinstance(node.value, dict):
        return {k: _flatten(v, path + (k,), out) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [_flatten(v, path + (i,), out) for i, v in enumerate(node.value)]
    return node.value


def _plain(node: _Node):
    if isinstance(node.value, dict):
        return {k: _plain(v) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [_plain(v) for v in node.value]
    return node.value


def _item_id(node: _Node):
    """The id of a list item that merges by id, or None."""
    if isinstance(node.value, dict) and "id" in node.value:
        i = node.value["id"].value
        if is_id(i):
            return i
    return None


def _is_id_list(items: list) -> bool:
    return bool(items) and all(_item_id(x) is not None for x in items)


def _removes(node: _Node) -> bool:
    """`{$remove: true}` (with an id beside it in an id list): delete what this names."""
    if not isinstance(node.value, dict):
        return False
    flag = node.value.get("$remove")
    return flag is not None and flag.value is True


def _is_list_patch(node: _Node) -> bool:
    """A mapping of list operations (`{$append: [...]}`, `{$remove: [...]}`, `{$merge: [...]}`)."""
    if not isinstance(node.value, dict):
        return False
    return any(k in ("$append", "$merge") or (k == "$remove" and isinstance(v.value, list))
               for k, v in node.value.items())


def _same(a, b) -> bool:
    """Equal YAML values, a list matching a list of the same items in any order (the road
    [nice, turin] is the road [turin, nice])."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        rest = list(b)
        for x in a:
            j = next((j for j, y in enumerate(rest) if _same(x, y)), None)
            if j is None:
                return False
            rest.pop(j)
        return True
    return type(a) is type(b) and a == b or (is_id(a) and is_id(b) and a == b)


def _flow(value) -> str:
    """A value written as YAML flow text, for messages: {between: [nice, turin]}."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _noun(key) -> str:
    """The name of one item of the list at `key`: colours -> colour, cities -> city."""
    word = str(key).replace("_", " ")
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return f"item of {word}"


class _Merge:
    """One patch merged into one base document, collecting the patch's mistakes."""

    def __init__(self, patch: YamlDoc, where: str, errors: list):
        self.patch = patch
        self.where = where          # "setup.yaml of base_3to5": the file the patch changes
        self.errors = errors

    def err(self, code, message, node: _Node, hint="", key=False):
        span = (node.key_span if key and node.key_span else node.span) or self.patch.span(())
        self.errors.append(Diagnostic(code, message, span, hint, source_line=self.patch.source_line(span)))

    def _in(self, path: tuple) -> str:
        """Where a list is: 'setup.yaml of base_3to5' (a top-level list), or
        'colours.blue.starting_cities in setup.yaml of base_3to5'."""
        return self._at(path) if len(path) > 1 else self.where

    def _at(self, path: tuple) -> str:
        """The value at `path`: 'setup.yaml of base_3to5', 'palaces.blue in palaces.yaml of ...'."""
        return f"{'.'.join(map(str, path))} in {self.where}" if path else self.where

    # -- any value
    def merge(self, base: _Node | None, patch: _Node, path: tuple) -> _Node:
        """`patch` merged into `base` (None: nothing there in the base)."""
        if isinstance(patch.value, dict):
            if _is_list_patch(patch):
                return self.list_ops(base, patch, path)
            self.check_keys(patch, path, allowed=("$remove",))
            if base is not None and isinstance(base.value, dict):
                return self.mapping(base, patch, path)
            return _Node({k: self.merge(None, v, path + (k,)) for k, v in patch.value.items()
                          if not str(k).startswith("$")}, patch.span, patch.key_span)
        if isinstance(patch.value, list):
            if base is not None and isinstance(base.value, list) and _is_id_list(base.value) \
                    and any(_item_id(x) is not None for x in patch.value):
                return self.by_id(base, patch.value, path)
            return _Node([self.merge(None, x, path + (i,)) for i, x in enumerate(patch.value)],
                         patch.span, patch.key_span)
        return patch

    def check_keys(self, patch: _Node, path: tuple, allowed: tuple) -> None:
        """An unknown `$key` is an error listing those a patch has."""
        for k, v in patch.value.items():
            if not str(k).startswith("$") or k in allowed:
                continue
            close = did_you_mean(str(k), PATCH_KEYS)
            self.err("RS100", f"unknown `{k}` in a patch", v, (close + " " if close else "") +
                     "A patch knows `$append: [items]`, `$remove: [items]` and `$merge: [items]` (on a list) and "
                     "`$remove: true` (deletes the key or item it is in)", key=True)
        flag = patch.value.get("$remove")
        if flag is not None and flag.value is not True and "$remove" in allowed:
            self.err("RS100", f"`$remove: {_flow(_plain(flag))}` in a patch", flag,
                     "write `$remove: true` to delete this key or item, or `$remove: [items]` to delete items of a list")

    # -- mappings
    def mapping(self, base: _Node, patch: _Node, path: tuple) -> _Node:
        out = dict(base.value)
        for k, v in patch.value.items():
            if str(k).startswith("$"):
                continue                       # checked by check_keys
            if _removes(v):
                if k in out:
                    del out[k]
                else:
                    close = did_you_mean(str(k), [str(x) for x in out])
                    self.err("RS108", f"cannot remove '{k}': {self._at(path)} has no '{k}'", v,
                             close or f"it has: {', '.join(map(str, out)) or 'nothing'}", key=True)
            elif k in out:
                out[k] = self.merge(out[k], v, path + (k,))
            else:
                out[k] = self.merge(None, v, path + (k,))
        # a merged mapping stays where the base wrote it; its new and changed values point at the patch
        return _Node(out, base.span, base.key_span)

    # -- lists
    def by_id(self, base: _Node, items: list, path: tuple, op: str = "") -> _Node:
        """Items that change base items by id (a plain list, or `$merge:`)."""
        out = list(base.value)
        name = path[-1] if path else "items"
        noun = _noun(name)
        for n, item in enumerate(items):
            iid = _item_id(item)
            if iid is None:
                self.err("RS100", f"{noun} {n + 1} of this patch {op or 'list'} has no `id`: the {name} of "
                         f"{self._in(path)} are changed by id", item,
                         f"add `id:` naming the {noun} to change; to add a new {noun} write it under `$append:`")
                continue
            at = next((i for i, x in enumerate(out) if _item_id(x) == iid), None)
            if at is None:
                ids = [str(_item_id(x)) for x in out]
                close = did_you_mean(str(iid), ids)
                known = f"The {name} there: {', '.join(ids)}." if len(ids) <= 12 else ""
                hint = " ".join(h for h in (close, known) if h)
                if _removes(item):
                    self.err("RS108", f"cannot remove {noun} '{iid}': there is no {noun} '{iid}' in "
                             f"{self._in(path)}", item.value["id"], hint)
                else:
                    self.err("RS108", f"no {noun} '{iid}' in {self._in(path)}", item.value["id"],
                             (hint + " " if hint else "") + f"To add a new {noun}, write it under `$append:` "
                             f"({name}: {{$append: [{{id: {iid}, ...}}]}})")
                continue
            if _removes(item):
                out.pop(at)
                continue
            out[at] = self.merge(out[at], item, path + (iid,))
        return _Node(out, base.span, base.key_span)

    def list_ops(self, base: _Node | None, patch: _Node, path: tuple) -> _Node:
        """A list's patch mapping: `$remove`, then `$merge`, then `$append`."""
        ops = patch.value
        for k, v in ops.items():
            if k not in LIST_OPS:
                close = did_you_mean(str(k), PATCH_KEYS)
                what = f"unknown `{k}`" if str(k).startswith("$") else f"`{k}:` beside `$` operations"
                self.err("RS100", f"{what} in the patch of {path[-1] if path else 'a list'}", v,
                         (close + " " if close else "") + "A list is patched with `$append: [items]`, "
                         "`$remove: [items]` and `$merge: [items]` (items with an id) only", key=True)
        name = path[-1] if path else "list"
        if base is not None and not isinstance(base.value, list):
            what = "a mapping" if isinstance(base.value, dict) else f"the value {_flow(_plain(base))}"
            fix = "write the keys to add or change directly" if isinstance(base.value, dict) else \
                "write the new value directly"
            self.err("RS100", f"`{next(iter(ops))}` patches a list, but {self._at(path)} is {what}", patch,
                     fix, key=True)
            return base
        out = _Node(list(base.value) if base is not None else [],
                    base.span if base is not None else patch.span,
                    base.key_span if base is not None else patch.key_span)
        id_list = _is_id_list(out.value)
        noun = _noun(name)
        for op in LIST_OPS:
            if op not in ops:
                continue
            node = ops[op]
            if not isinstance(node.value, list):
                self.err("RS100", f"`{op}` takes a list of {name}, not {_flow(_plain(node))}", node,
                         f"write `{op}: [...]`, one item per {noun}")
                continue
            if op != "$append" and base is None:
                self.err("RS108", f"`{op}` changes {name}, but {self._at(path[:-1])} has no {name}", node, key=True,
                         hint="`$append: [...]` starts the list")
            elif op == "$remove":
                for pattern in node.value:
                    self.remove(out, pattern, id_list, path)
            elif op == "$merge":
                if not id_list:
                    self.err("RS100", f"`$merge` changes items by id, but the {name} of {self._in(path)} have no "
                             "id", node, "use `$remove` to delete the old item and `$append` to add the new one",
                             key=True)
                    continue
                out = self.by_id(out, node.value, path, "`$merge`")
            else:
                taken = {_item_id(x) for x in out.value} if id_list else set()
                for item in node.value:
                    iid = _item_id(item)
                    if iid is not None and iid in taken:
                        self.err("RS101", f"{noun} '{iid}' is already in {self._in(path)}", item.value["id"],
                                 f"to change it, list it under `$merge:` (or in a plain list of changes: "
                                 f"{name}: [{{id: {iid}, ...}}])")
                        continue
                    taken.add(iid)
                    out.value.append(self.merge(None, item, path + (len(out.value),)))
        return out

    def remove(self, out: _Node, pattern: _Node, id_list: bool, path: tuple) -> None:
        """Delete the item `pattern` names: an id (lists with ids), a scalar equal to it, or the
        item whose keys equal those of the pattern mapping. No match, or several, is an error."""
        name = path[-1] if path else "list"
        noun = _noun(name)
        want = _plain(pattern)
        if id_list and is_id(want):
            want = {"id": want}

        def matches(item: _Node) -> bool:
            got = _plain(item)
            if isinstance(want, dict):
                return isinstance(got, dict) and all(k in got and _same(got[k], v) for k, v in want.items())
            return _same(got, want)

        hits = [i for i, x in enumerate(out.value) if matches(x)]
        if len(hits) > 1 and isinstance(want, dict):
            self.err("RS108", f"{_flow(want)} matches {len(hits)} {name} of {self._in(path)}", pattern,
                     f"give more keys so that it names one {noun}: "
                     + "; ".join(_flow(_plain(out.value[i])) for i in hits[:4]))
            return
        if not hits:
            self.err("RS108", f"no {noun} {_flow(want)} in {self._in(path)} to remove", pattern,
                     self._nearest(want, out.value, id_list) or f"see the {name} with `rulespec show`")
            return
        for i in reversed(hits):
            out.value.pop(i)

    @staticmethod
    def _nearest(want, items: list, id_list: bool) -> str:
        """'did you mean …?' with the item closest to `want`, shown by the keys `want` gives."""
        if id_list and isinstance(want, dict) and "id" in want:
            return did_you_mean(str(want["id"]), [str(_item_id(x)) for x in items])
        shown = []
        for x in items:
            got = _plain(x)
            if isinstance(want, dict) and isinstance(got, dict):
                got = {k: got[k] for k in want if k in got}
            shown.append(_flow(got))
        close = difflib.get_close_matches(_flow(want), shown, n=1, cutoff=0.6)
        return f"did you mean {close[0]}?" if close else ""


def merge_yaml_docs(base: YamlDoc, patch: YamlDoc, errors: list | None = None, where: str | None = None) -> YamlDoc:
    """`patch` (a NAME.patch.yaml) merged into `base` (see the module docstring). Every value
    taken from the patch keeps its position in the patch file (at its merged path); the rest
    keep the base's. The patch's mistakes are appended to `errors` (the rest of the patch is
    applied), or raised as one RulespecError when no list is given. `where` names the base in
    messages ("setup.yaml of base_3to5"; default: the base file's name)."""
    found: list = []
    merger = _Merge(patch, where or Path(base.file).name, found)
    merged = merger.merge(_annotate(base, base.data), _annotate(patch, patch.data), ())
    out = YamlDoc(base.file, None, {}, base.text, sources={**base.sources, **patch.sources})
    out.data = _flatten(merged, (), out)
    if errors is not None:
        errors.extend(found)
    elif found:
        raise RulespecError(found)
    return out
