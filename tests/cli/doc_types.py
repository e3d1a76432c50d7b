"""The value types the docs' key tables name ("string", "int or null", "array of strings",
...), checked against values parsed from kbench's JSON output. Shared by the tests that hold
`kbench info --json`, `kbench peaks --json` and results files to their documentation."""


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def type_ok(value, doc_type, empty_strings=False):
    """True when value is of the documented type; strings must be non-empty unless
    empty_strings is set."""
    if value is None:
        return "or null" in doc_type
    base = doc_type.replace(" or null", "")
    checks = {
        "string": lambda v: isinstance(v, str) and (empty_strings or v != ""),
        "int": _is_int,
        "number": lambda v: _is_int(v) or isinstance(v, float),
        "bool": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array of strings": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "array of objects": lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
        "array of arrays of int": lambda v: isinstance(v, list)
        and all(isinstance(r, list) and all(_is_int(x) for x in r) for r in v),
    }
    check = checks.get(base)
    return bool(check and check(value))
