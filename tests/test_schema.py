"""The scenario JSON Schema: generated from the Rust definition, published in docs/, and
accepting exactly what the parser accepts on the shipped scenarios."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest

from fairnet import _core

REPO = Path(__file__).resolve().parents[1]


def _schema() -> dict:
    return json.loads(_core.scenario_json_schema())


def test_published_schema_is_the_generated_one() -> None:
    published = json.loads((REPO / "docs" / "scenario.schema.json").read_text())
    assert published == _schema(), "run `fairnet schema -o docs/scenario.schema.json`"


@pytest.mark.parametrize("path", sorted((REPO / "scenarios").glob("*.toml")), ids=lambda p: p.name)
def test_shipped_scenarios_validate(path: Path) -> None:
    doc = tomllib.loads(path.read_text())
    jsonschema.validate(doc, _schema())
    # ... and the resolved form (every default written out) too.
    jsonschema.validate(json.loads(_core.resolve_scenario(json.dumps(doc))), _schema())


def test_schema_rejects_what_the_parser_rejects() -> None:
    doc = tomllib.loads((REPO / "scenarios" / "default.toml").read_text())
    schema = _schema()
    for bad in (
        {**doc, "colour": 1},  # unknown top-level key
        {**doc, "workload": {**doc["workload"], "load": 1.4}},  # fraction out of range
        {**doc, "topology": {**doc["topology"], "host_rate": "fast"}},  # not a rate
        {**doc, "engine": {"kind": "warp"}},  # unknown engine
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        with pytest.raises(ValueError):
            _core.resolve_scenario(json.dumps(bad))


def test_schema_command_prints_it() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "fairnet.cli", "schema"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["title"] == "fairnet scenario"
