"""JSON Schemas for pack YAML files, shipped in rulespec/schemas/ so editors can autocomplete.

`check_schema(doc, name)` validates a YamlDoc against `schemas/<name>.schema.json` and turns
every jsonschema error into a Diagnostic (code RS100) at the offending YAML line.
jsonschema is imported on the first check, not with this module: a warm `rulespec validate`
(pack from the compiled-pack cache, its files checked when it was stored) never needs it.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from .errors import Diagnostic
from .yamldata import YamlDoc

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


def schema_names() -> list[str]:
    return sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))


# schemas of files that are not pack data: the manifest (pack.yaml), scenario files, game logs
NOT_PACK_DATA = {"pack", "scenario", "log"}


def data_schema_names() -> set[str]:
    """The data files a pack may hold that have a schema (map, setup, tracks...)."""
    return set(schema_names()) - NOT_PACK_DATA


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def _describe(err: "jsonschema.ValidationError") -> tuple[str, str]:
    """Message and hint for one schema error, in plain words."""
    where = "/".join(str(p) for p in err.absolute_path) or "top level"
    v = err.validator
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return f"missing required field '{missing}' at {where}", f"add '{missing}:' here"
    if v == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        return (f"unexpected field at {where}: {err.message}",
                "allowed fields here: " + ", ".join(allowed) if allowed else "remove it")
    if v == "enum":
        return (f"value {err.instance!r} at {where} is not one of the allowed values",
                "expected one of: " + ", ".join(map(str, err.validator_value)))
    if v == "type":
        return (f"value {err.instance!r} at {where} has the wrong type",
                f"expected {err.validator_value}")
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"value {err.instance!r} at {where} is out of range", err.message
    if v == "pattern":
        return (f"value {err.instance!r} at {where} is not a valid identifier",
                "use lower-case letters, digits and underscores, starting with a letter")
    return f"{err.message} (at {where})", ""


def check_schema(doc: YamlDoc, name: str) -> list[Diagnostic]:
    import jsonschema
    schema = load_schema(name)
    validator = jsonschema.Draft202012Validator(schema)
    out = []
    for err in sorted(validator.iter_errors(doc.data), key=lambda e: [str(p) for p in e.absolute_path]):
        path = tuple(err.absolute_path)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            extra = [k for k in err.instance if k not in err.schema.get("properties", {})]
            if extra:
                path = path + (extra[0],)
        span = doc.span(path)
        msg, hint = _describe(err)
        out.append(Diagnostic("RS100", f"{Path(doc.file).name}: {msg}", span, hint,
                              source_line=doc.source_line(span)))
    return out
