"""Recipe identity: the (name, version) discriminator of an artifact, checked against a catalog."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pixtreme.infer.errors import InferError

__all__ = [
    "RecipeCatalogEntry",
    "RecipeIdentity",
    "RecipeIdentityError",
    "is_positive_discriminator",
    "parse_recipe_identity",
    "validate_recipe_reference",
]


@dataclass(frozen=True)
class RecipeIdentity:
    """The stable name and version an architecture declares for one recipe."""

    name: str
    version: int

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"

    def as_tuple(self) -> tuple[str, int]:
        """``(name, version)``."""
        return (self.name, self.version)

    def as_dict(self) -> dict[str, object]:
        """``{"name": ..., "version": ...}`` for JSON records."""
        return {"name": self.name, "version": self.version}


@dataclass(frozen=True)
class RecipeCatalogEntry:
    """One catalog entry: a recipe identity and the precisions it supports."""

    identity: RecipeIdentity
    supported_precisions: tuple[str, ...]


class RecipeIdentityError(InferError, ValueError):
    """A recipe identity or reference is invalid; ``detail`` names the catalog path."""

    def __init__(self, *, path: str, detail: str) -> None:
        self.detail = f"{path}: {detail}"
        self.path = path
        super().__init__(
            why=f"the recipe identity is invalid: {detail}",
            what=self.detail,
            how="select a recipe identity from the module's catalog",
        )


def is_positive_discriminator(value: object) -> bool:
    """Whether ``value`` is a positive int (booleans excluded)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def parse_recipe_identity(value: Mapping[str, object], *, path: str) -> RecipeIdentity:
    """Read ``{"name": str, "version": int}`` at ``path``, without architecture discovery."""
    if not isinstance(value, Mapping):
        raise RecipeIdentityError(path=path, detail=f"expected a mapping, observed {value!r}")
    name = value.get("name")
    version = value.get("version")
    if not isinstance(name, str) or not name:
        raise RecipeIdentityError(path=path, detail=f"unknown recipe name={name!r}")
    if not is_positive_discriminator(version):
        raise RecipeIdentityError(
            path=path, detail=f"recipe version={version!r} must be a positive integer"
        )
    assert isinstance(version, int)
    return RecipeIdentity(name, version)


def validate_recipe_reference(
    identity: RecipeIdentity,
    *,
    catalog: Mapping[RecipeIdentity, RecipeCatalogEntry],
    path: str,
    precision: str | None = None,
) -> RecipeIdentity:
    """Return ``identity`` if ``catalog`` holds it (and supports ``precision``, when given)."""
    entry = catalog.get(identity)
    if entry is None:
        known = sorted(str(key) for key in catalog)
        raise RecipeIdentityError(
            path=path,
            detail=f"recipe identity={identity.as_tuple()!r} is absent from the catalog "
            f"(catalog holds {known})",
        )
    if precision is not None and precision not in entry.supported_precisions:
        raise RecipeIdentityError(
            path=path,
            detail=f"recipe identity={identity.as_tuple()!r} does not support "
            f"precision={precision!r}; supported={entry.supported_precisions!r}",
        )
    return identity
