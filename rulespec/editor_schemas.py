"""The JSON Schemas as editors get them: copies of rulespec/schemas/, and patch schemas.

An editor extension can only point at files inside its own folder, so editors/vscode/schemas/
holds byte-identical copies of rulespec/schemas/*.schema.json (a test keeps them identical).

A `NAME.patch.yaml` holds only the keys it changes, and the validator checks it once merged
into the base's `NAME.yaml`. Against the full schema an editor would flag every required field
the patch leaves out, so each data schema also gets a *patch schema*,
`NAME.patch.schema.json`, derived from it: nothing is required (`required`, `minItems`,
`minProperties`, `dependentRequired` dropped), `oneOf` becomes `anyOf` (with nothing required,
two branches may both fit), every mapping may be `{$remove: true}`, and every list may be
given as list operations (`{$append: [...], $remove: [...], $merge: [...]}`, rulespec/yamlpatch.py).
Unknown keys, wrong types and wrong values are still flagged; `if` conditions are kept as written.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

from .schema import SCHEMA_DIR, data_schema_names

DEFAULT_SCHEMA_OUT = Path("editors/vscode/schemas")        # relative to the root of a checkout

_DROPPED = ("required", "minItems", "minProperties", "dependentRequired")
_DATA = ("const", "enum", "default", "examples")     # values, not schemas
_SCHEMA_MAPS = ("$defs", "definitions", "patternProperties", "dependentSchemas")   # name -> schema
REMOVE_KEY = "$remove"
_REMOVE = {"const": True,
           "description": "`$remove: true` deletes this mapping entry or list item (matched by id) from the base file."}


def patch_schema(schema: dict) -> dict:
    """The schema a `NAME.patch.yaml` is checked against in an editor (see the docstring)."""
    out = _loosen(copy.deepcopy(schema))
    out["$id"] = schema["$id"].replace(".schema.json", ".patch.schema.json")
    out["title"] = f"{schema['title']}: a patch (NAME.patch.yaml)"
    out["description"] = ("The keys a NAME.patch.yaml changes in the base pack's NAME.yaml: mappings merge key "
                          "by key, lists of items with an `id` merge by id, `$remove: true` deletes. Nothing "
                          "is required here; the validator checks the merged file against the full schema. "
                          + schema.get("description", ""))
    return out


def _loosen(node):
    if isinstance(node, list):
        return [_loosen(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key in _DATA or key == "if":
            out[key] = value                    # data, or a condition whose meaning must not change
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {k: _loosen(v) for k, v in value.items()}
        elif key == "oneOf":
            out["anyOf"] = _loosen(value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: _loosen(v) for k, v in value.items()}
            out[key].setdefault(REMOVE_KEY, dict(_REMOVE))
        elif key == "propertyNames" and isinstance(value, dict):
            out[key] = {"anyOf": [value, {"const": REMOVE_KEY}]}
        else:
            out[key] = _loosen(value)
    if out.get("type") == "array":
        return {"anyOf": [out, _list_operations(out)]}
    return out


def _list_operations(array: dict) -> dict:
    """A list in a patch may also be written as list operations (rulespec/yamlpatch.py)."""
    items = {k: v for k, v in array.items() if k not in ("description", "title")}
    return {"type": "object", "additionalProperties": False, "minProperties": 1,
            "description": "list operations: `$append` new items, `$remove` items (by id, or by the keys "
                           "given), `$merge` items into those of the same id",
            "properties": {"$append": items, "$merge": items, "$remove": {"type": "array"}}}


def editor_schemas() -> dict:
    """{file name: text} of every schema an editor gets: the copies, then the patch schemas."""
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(SCHEMA_DIR.glob("*.schema.json"))}
    for name in sorted(data_schema_names()):
        schema = json.loads(files[f"{name}.schema.json"])
        files[f"{name}.patch.schema.json"] = json.dumps(patch_schema(schema), indent=2, ensure_ascii=False) + "\n"
    return files


def write_schemas(folder: Path, check_only: bool = False) -> list:
    """Write the editors' schemas into folder (or only compare); returns the paths that were
    out of date, a stale file no longer generated included."""
    wanted = editor_schemas()
    stale = []
    for name, text in wanted.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(str(path))
            if not check_only:
                folder.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        if path.name not in wanted:
            stale.append(str(path))
            if not check_only:
                path.unlink()
    return stale
