"""recipe_identity: parsing and catalog references as published, with the path in every error."""

from __future__ import annotations

import pytest
from pixtreme.infer.recipe_identity import (
    RecipeCatalogEntry,
    RecipeIdentity,
    RecipeIdentityError,
    is_positive_discriminator,
    parse_recipe_identity,
    validate_recipe_reference,
)

X2 = RecipeIdentity("example-x2", 1)
CATALOG = {X2: RecipeCatalogEntry(X2, ("fp32", "fp16"))}


def test_identity_forms() -> None:
    assert X2.as_tuple() == ("example-x2", 1)
    assert X2.as_dict() == {"name": "example-x2", "version": 1}
    assert str(X2) == "example-x2@1"
    assert RecipeIdentity("example-x2", 1) == X2
    assert hash(RecipeIdentity("example-x2", 1)) == hash(X2)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, True), (7, True), (0, False), (-1, False), (True, False), (1.0, False), ("1", False)],
    ids=repr,
)
def test_is_positive_discriminator(value: object, expected: bool) -> None:
    assert is_positive_discriminator(value) is expected


def test_parse_recipe_identity() -> None:
    assert parse_recipe_identity({"name": "example-x2", "version": 1}, path="$.recipe") == X2


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        pytest.param({"version": 1}, "unknown recipe name=None", id="no-name"),
        pytest.param({"name": "", "version": 1}, "unknown recipe name=''", id="empty-name"),
        pytest.param({"name": "x"}, "version=None must be a positive integer", id="no-version"),
        pytest.param({"name": "x", "version": True}, "version=True", id="bool-version"),
        pytest.param({"name": "x", "version": 0}, "version=0", id="zero-version"),
        pytest.param(["x", 1], "expected a mapping", id="not-a-mapping"),
    ],
)
def test_parse_recipe_identity_rejects(value: object, detail: str) -> None:
    with pytest.raises(RecipeIdentityError, match="how=select a recipe identity") as info:
        parse_recipe_identity(value, path="$.recipe")  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    assert info.value.detail.startswith("$.recipe: ")
    assert detail in info.value.detail


def test_validate_recipe_reference() -> None:
    assert validate_recipe_reference(X2, catalog=CATALOG, path="$.r") is X2
    assert validate_recipe_reference(X2, catalog=CATALOG, path="$.r", precision="fp16") is X2
    with pytest.raises(RecipeIdentityError, match="absent from the catalog"):
        validate_recipe_reference(RecipeIdentity("other", 2), catalog=CATALOG, path="$.r")
    with pytest.raises(RecipeIdentityError, match="does not support precision='int8'"):
        validate_recipe_reference(X2, catalog=CATALOG, path="$.r", precision="int8")
