"""Recipe identity: parsing, catalog entries and reference validation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pixtreme.infer.recipes import (
    RecipeCatalogEntry,
    RecipeIdentity,
    RecipeIdentityError,
    parse_recipe_identity,
    validate_recipe_reference,
)

pytestmark = pytest.mark.req("issue6.recipes")

CATALOG = (
    RecipeCatalogEntry(
        identity=RecipeIdentity(name="example-x2", version=1), supported_precisions=("fp32",)
    ),
    RecipeCatalogEntry(
        identity=RecipeIdentity(name="example-x2", version=3),
        supported_precisions=("fp32", "fp16"),
    ),
    RecipeCatalogEntry(
        identity=RecipeIdentity(name="denoise", version=2), supported_precisions=("int8",)
    ),
)


def test_identity_forms() -> None:
    identity = parse_recipe_identity(" example-x2@3 ")
    assert identity == RecipeIdentity(name="example-x2", version=3)
    assert str(identity) == "example-x2@3"
    assert identity.as_tuple() == ("example-x2", 3)
    assert identity.as_dict() == {"name": "example-x2", "version": 3}
    assert parse_recipe_identity(str(identity)) == identity


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"name": "Example"}, "lower-case letters and digits"),
        ({"name": "x--2"}, "lower-case letters and digits"),
        ({"name": ""}, "lower-case letters and digits"),
        ({"name": 3}, "lower-case letters and digits"),
        ({"version": 0}, "version is a positive integer"),
        ({"version": True}, "version is a positive integer"),
        ({"version": "1"}, "version is a positive integer"),
    ],
    ids=["upper", "double-hyphen", "empty", "int-name", "zero", "bool", "str-version"],
)
def test_identity_rejects(fields: dict[str, Any], pattern: str) -> None:
    base: dict[str, Any] = {"name": "example", "version": 1}
    base.update(fields)
    with pytest.raises(RecipeIdentityError, match=pattern):
        RecipeIdentity(**base)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("example", "has the form '<name>@<version>'"),
        ("example@", "has the form"),
        ("example@v1", "has the form"),
        ("example@1@2", "has the form"),
        ("Exa@1", "lower-case letters"),
        (None, "is a string"),
    ],
)
def test_parse_rejects(text: object, pattern: str) -> None:
    with pytest.raises(RecipeIdentityError, match=pattern):
        parse_recipe_identity(text)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"identity": "example@1"}, "names its recipe with a RecipeIdentity"),
        ({"supported_precisions": ()}, "one or more distinct supported precisions"),
        ({"supported_precisions": ("fp64",)}, "one or more distinct"),
        ({"supported_precisions": ("fp32", "fp32")}, "one or more distinct"),
        ({"supported_precisions": ["fp32"]}, "one or more distinct"),
    ],
    ids=["identity-str", "empty", "unknown", "duplicate", "list"],
)
def test_catalog_entry_rejects(fields: dict[str, Any], pattern: str) -> None:
    base: dict[str, Any] = {
        "identity": RecipeIdentity(name="example", version=1),
        "supported_precisions": ("fp32",),
    }
    base.update(fields)
    with pytest.raises(RecipeIdentityError, match=pattern):
        RecipeCatalogEntry(**base)


def test_validate_reference_finds_the_entry() -> None:
    assert validate_recipe_reference("example-x2@3", CATALOG, precision="fp16") is CATALOG[1]
    assert validate_recipe_reference(CATALOG[2].identity, CATALOG) is CATALOG[2]


@pytest.mark.parametrize(
    ("reference", "precision", "pattern"),
    [
        ("example-x2@2", None, "how=use one of the catalog's versions: example-x2@1, example-x2@3"),
        ("exampel-x2@1", None, "how=did you mean 'example-x2'"),
        ("zzz@1", None, "how=use a catalog recipe: example-x2@1"),
        ("example-x2@1", "fp16", r"supported: \('fp32',\)"),
        ("example-x2", None, "has the form"),
    ],
    ids=["other-version", "misspelt", "unknown", "precision", "malformed"],
)
def test_validate_reference_rejects(reference: str, precision: Any, pattern: str) -> None:
    with pytest.raises(RecipeIdentityError, match=pattern):
        validate_recipe_reference(reference, CATALOG, precision=precision)


def test_validate_reference_rejects_a_duplicated_catalog() -> None:
    with pytest.raises(RecipeIdentityError, match="lists each identity once"):
        validate_recipe_reference("denoise@2", (*CATALOG, CATALOG[2]))


@given(
    name=st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True),
    version=st.integers(min_value=1, max_value=10**6),
)
def test_text_form_round_trips(name: str, version: int) -> None:
    identity = RecipeIdentity(name=name, version=version)
    assert parse_recipe_identity(str(identity)) == identity
