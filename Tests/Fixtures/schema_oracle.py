#!/usr/bin/env python3
"""The second oracle for Orrery's JSON Schema validator: openapi-schema-validator judges the same instances.

Reads on stdin {"dialect": "3.0" | "3.1", "document": <an OpenAPI document as JSON>, "cases": [{"pointer":
"/components/schemas/Pet", "direction": "request" | "response" | null, "instance": ...}]} and writes one line:
a JSON list with true (valid) or false for each case, in order.
"""
import json
import sys

from openapi_schema_validator import (
    OAS30ReadValidator,
    OAS30Validator,
    OAS30WriteValidator,
    OAS31Validator,
    oas30_format_checker,
    oas31_format_checker,
)
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4, DRAFT202012

BASE = "urn:orrery:spec"


def main():
    request = json.load(sys.stdin)
    is30 = request["dialect"] == "3.0"
    specification = DRAFT4 if is30 else DRAFT202012
    resource = Resource.from_contents(request["document"], default_specification=specification)
    registry = Registry().with_resource(BASE, resource)
    verdicts = []
    for case in request["cases"]:
        schema = {"$ref": BASE + "#" + case["pointer"]}
        if is30:
            validator_class = {"request": OAS30WriteValidator, "response": OAS30ReadValidator}.get(
                case.get("direction"), OAS30Validator)
            checker = oas30_format_checker
        else:
            validator_class = OAS31Validator
            checker = oas31_format_checker
        validator = validator_class(schema, registry=registry, format_checker=checker)
        verdicts.append(validator.is_valid(case["instance"]))
    print(json.dumps(verdicts))


if __name__ == "__main__":
    main()
