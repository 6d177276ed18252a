#!/usr/bin/env python3
"""Writes media_gateway/_operations.py from the API's OpenAPI document.

The document is the one the Worker serves at /openapi.json (the route declarations' own):

    python3 packages/python/scripts/generate.py --url http://127.0.0.1:8787
    python3 packages/python/scripts/generate.py --openapi openapi.json
    python3 packages/python/scripts/generate.py --url http://127.0.0.1:8787 --check

The module holds one entry per operation (operationId -> method, path, path and query
parameters, whether it takes an Idempotency-Key, whether it creates a task, the schemas of its
body and result) and a TypedDict for every schema of the document's components. `--check`
writes nothing and exits 1 when the committed module differs from what the document gives;
`--out` names another module to write or check. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "media_gateway" / "_operations.py"
METHODS = ["get", "put", "post", "delete", "patch", "head", "options"]
REF_PREFIX = "#/components/schemas/"

Schema = Dict[str, Any]


def load_document(url: Optional[str], path: Optional[str]) -> Schema:
    if path:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    assert url is not None
    base = url.rstrip("/")
    if base.endswith("/v1"):
        base = base[: -len("/v1")]
    req = urllib.request.Request(base + "/openapi.json", headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as res:  # noqa: S310 (a URL the caller gives)
        return json.loads(res.read().decode("utf-8"))


def ref_name(schema: Schema) -> Optional[str]:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if isinstance(ref, str) and ref.startswith(REF_PREFIX):
        return ref[len(REF_PREFIX) :]
    return None


def pascal(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", text)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


# ---------------------------------------------------------------------------------------------
# The operation table


def describe_operations(doc: Schema) -> List[Schema]:
    rows: List[Schema] = []
    missing: List[str] = []
    for path, item in doc.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            op_id = op.get("operationId")
            if not isinstance(op_id, str) or not op_id:
                missing.append(f"{method.upper()} {path}")
                continue
            params = list(item.get("parameters") or []) + list(op.get("parameters") or [])
            schemes = [name for s in (op.get("security") or []) for name in s]
            body_schema = ((op.get("requestBody") or {}).get("content") or {}).get("application/json", {}).get("schema")
            result: Optional[str] = None
            creates_task = False
            response_types: set = set()
            for status, response in sorted((op.get("responses") or {}).items()):
                if not str(status).startswith("2"):
                    continue
                content = response.get("content") or {}
                response_types.update(content.keys())
                schema = (content.get("application/json") or {}).get("schema")
                name = ref_name(schema) if schema else None
                if name and result is None:
                    result = name
                if str(status) == "202" and name == "TaskEnvelope":
                    creates_task = True
            rows.append(
                {
                    "operation_id": op_id,
                    "method": method.upper(),
                    "path": path,
                    "tag": (op.get("tags") or [None])[0],
                    "summary": op.get("summary") or "",
                    "capability": op.get("x-capability"),
                    "auth": "admin" if "adminToken" in schemes else ("api_key" if schemes else "none"),
                    "idempotency_key": any(
                        p.get("in") == "header" and str(p.get("name", "")).lower() == "idempotency-key" for p in params
                    ),
                    "creates_task": creates_task,
                    "path_params": [p["name"] for p in params if p.get("in") == "path"],
                    "query_params": [p["name"] for p in params if p.get("in") == "query"],
                    "request_types": sorted(((op.get("requestBody") or {}).get("content") or {}).keys()),
                    "response_types": sorted(response_types),
                    "body": ref_name(body_schema) if body_schema else None,
                    "result": result,
                }
            )
    if missing:
        raise SystemExit("operations without an operationId:\n  " + "\n  ".join(missing))
    seen: set = set()
    for row in rows:
        if row["operation_id"] in seen:
            raise SystemExit(f"operationId '{row['operation_id']}' is used twice")
        seen.add(row["operation_id"])
    return sorted(rows, key=lambda r: r["operation_id"])


# ---------------------------------------------------------------------------------------------
# TypedDicts for the component schemas


class Models:
    """Python type expressions for schemas; inline objects with properties become TypedDicts of their own."""

    def __init__(self, doc: Schema):
        self.schemas: Dict[str, Schema] = (doc.get("components") or {}).get("schemas") or {}
        self.classes: List[str] = []
        self.names: set = set(self.schemas)
        self.uses: set = set()

    def typ(self, schema: Any, hint: str) -> str:
        if not isinstance(schema, dict) or not schema:
            self.uses.add("Any")
            return "Any"
        name = ref_name(schema)
        if name:
            return f'"{name}"' if name in self.schemas else "Any"
        for key in ("oneOf", "anyOf"):
            if isinstance(schema.get(key), list):
                return self.union([self.typ(s, hint) for s in schema[key]])
        if isinstance(schema.get("allOf"), list):
            parts = schema["allOf"]
            if len(parts) == 1:
                return self.typ(parts[0], hint)
            merged: Schema = {"type": "object", "properties": {}, "required": []}
            for part in parts:
                target = self.schemas.get(ref_name(part) or "", part) if isinstance(part, dict) else {}
                merged["properties"].update(target.get("properties") or {})
                merged["required"] += list(target.get("required") or [])
            return self.typ(merged, hint) if merged["properties"] else self.any()
        if "const" in schema:
            return self.literal([schema["const"]])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.literal(schema["enum"])
        t = schema.get("type")
        if isinstance(t, list):
            return self.union([self.typ({**schema, "type": x}, hint) for x in t])
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            self.uses.add("List")
            return f"List[{self.typ(schema.get('items'), hint + 'Item')}]"
        if t == "object" or "properties" in schema:
            if schema.get("properties"):
                return f'"{self.klass(hint, schema)}"'
            extra = schema.get("additionalProperties")
            self.uses.add("Dict")
            value = self.typ(extra, hint + "Value") if isinstance(extra, dict) and extra else self.any()
            return f"Dict[str, {value}]"
        return self.any()

    def any(self) -> str:
        self.uses.add("Any")
        return "Any"

    def literal(self, values: List[Any]) -> str:
        simple = [v for v in values if isinstance(v, (str, int, bool)) or v is None]
        if len(simple) != len(values):
            return self.any()
        self.uses.add("Literal")
        items = ", ".join("None" if v is None else json.dumps(v) if isinstance(v, str) else repr(v) for v in values)
        return f"Literal[{items}]"

    def union(self, types: List[str]) -> str:
        unique: List[str] = []
        for t in types:
            if t not in unique:
                unique.append(t)
        if "Any" in unique:
            return "Any"
        if len(unique) == 1:
            return unique[0]
        if "None" in unique:
            rest = [t for t in unique if t != "None"]
            self.uses.add("Optional")
            return f"Optional[{self.union(rest)}]" if len(rest) > 1 else f"Optional[{rest[0]}]"
        self.uses.add("Union")
        return f"Union[{', '.join(unique)}]"

    def klass(self, name: str, schema: Schema) -> str:
        base = name
        n = 2
        while name in self.names and base not in self.schemas:
            name = f"{base}{n}"
            n += 1
        self.names.add(name)
        props: Dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        fields = [(field, self.typ(prop, name + pascal(field)), field in required) for field, prop in props.items()]
        doc = (schema.get("description") or "").strip().splitlines()
        self.classes.append(render_class(name, fields, doc[0] if doc else ""))
        return name

    def render(self) -> str:
        for name in sorted(self.schemas):
            schema = self.schemas[name]
            if isinstance(schema, dict) and schema.get("properties") and schema.get("type", "object") == "object":
                self.klass(name, schema)
            else:
                alias = self.typ(schema, name)
                self.classes.append(f"{name} = {alias.strip(chr(34))}\n" if alias != f'"{name}"' else "")
        return "\n\n".join(c for c in self.classes if c)


def render_class(name: str, fields: List[Any], summary: str) -> str:
    ok = all(f.isidentifier() and not keyword.iskeyword(f) for f, _, _ in fields)
    required = [(f, t) for f, t, r in fields if r]
    optional = [(f, t) for f, t, r in fields if not r]
    doc = f'    """{summary}"""\n' if summary and '"""' not in summary and "\\" not in summary else ""
    if not ok:
        # Names that are not Python identifiers: the functional form, every field optional.
        body = ", ".join(f"{json.dumps(f)}: {t}" for f, t, _ in fields)
        return f"{name} = TypedDict({json.dumps(name)}, {{{body}}}, total=False)\n"
    if required and optional:
        head = f"class _{name}Required(TypedDict):\n" + "".join(f"    {f}: {t}\n" for f, t in required)
        return head + f"\n\nclass {name}(_{name}Required, total=False):\n" + doc + "".join(f"    {f}: {t}\n" for f, t in optional)
    total = "" if required else ", total=False"
    lines = "".join(f"    {f}: {t}\n" for f, t in (required or optional)) or "    pass\n"
    return f"class {name}(TypedDict{total}):\n" + doc + lines


# ---------------------------------------------------------------------------------------------
# The module


def pyrepr(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "(" + "".join(pyrepr(v) + ", " for v in value).rstrip(" ") + ")" if value else "()"
    return repr(value)


def render_module(doc: Schema) -> str:
    rows = describe_operations(doc)
    models = Models(doc)
    classes = models.render()
    typing_names = sorted({"Any", "Dict", "NamedTuple", "Optional", "Tuple", "TypedDict"} | models.uses)
    entries = []
    for row in rows:
        fields = "".join(f"        {k}={pyrepr(v)},\n" for k, v in row.items() if k != "operation_id")
        entries.append(f"    {json.dumps(row['operation_id'])}: Operation(\n{fields}    ),\n")
    return (
        '"""The operations and schemas of the API, read from its OpenAPI document.\n\n'
        "Written by packages/python/scripts/generate.py; do not edit by hand. Regenerate with\n"
        "`python3 packages/python/scripts/generate.py --url <base URL of a running server>`.\n"
        '"""\n\n'
        "# ruff: noqa\n"
        f"from typing import {', '.join(typing_names)}\n\n"
        f"OPENAPI_VERSION = {json.dumps(doc.get('openapi', ''))}\n"
        f"API_VERSION = {json.dumps((doc.get('info') or {}).get('version', ''))}\n\n\n"
        "class Operation(NamedTuple):\n"
        '    """How one operation is called."""\n\n'
        "    method: str\n"
        "    path: str\n"
        "    tag: Optional[str]\n"
        "    summary: str\n"
        "    capability: Optional[str]\n"
        '    auth: str  # "api_key", "admin" or "none"\n'
        "    idempotency_key: bool\n"
        "    creates_task: bool\n"
        "    path_params: Tuple[str, ...]\n"
        "    query_params: Tuple[str, ...]\n"
        "    request_types: Tuple[str, ...]\n"
        "    response_types: Tuple[str, ...]\n"
        "    body: Optional[str]  # the component schema of the JSON body\n"
        "    result: Optional[str]  # the component schema of the JSON answer\n\n\n"
        "OPERATIONS: Dict[str, Operation] = {\n" + "".join(entries) + "}\n\n\n" + classes + "\n"
    )


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--url", help="base URL of a running server (its /openapi.json is read)")
    source.add_argument("--openapi", help="an OpenAPI JSON file")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="the module to write or check")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the module is stale")
    args = parser.parse_args(argv)
    doc = load_document(args.url, args.openapi)
    text = render_module(doc)
    out = Path(args.out)
    current = out.read_text(encoding="utf-8") if out.exists() else None
    if args.check:
        if current != text:
            sys.stderr.write(
                f"{out} is stale: it differs from what the server's OpenAPI document gives.\n"
                "Regenerate it with `python3 packages/python/scripts/generate.py --url <base URL>` "
                "(or `--openapi <file>`) and commit the result.\n"
            )
            return 1
        print(f"{out} matches the server's OpenAPI document.")
        return 0
    if current != text:
        out.write_text(text, encoding="utf-8")
    n = len(describe_operations(doc))
    print(f"{'wrote' if current != text else 'unchanged:'} {out} ({n} operations)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
