"""Recipe identity: which training recipe (name and version) an artifact was built from.

The text form is ``"<name>@<version>"``, for example ``"example-x2@3"``: a lower-case name of
letters, digits and single hyphens, and a positive integer version.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from pixtreme.infer._contract_values import PRECISIONS, Precision
from pixtreme.infer.errors import InferError

__all__ = (
    "RecipeCatalogEntry",
    "RecipeIdentity",
    "RecipeIdentityError",
    "parse_recipe_identity",
    "validate_recipe_reference",
)

_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_TEXT = re.compile(r"^(?P<name>[^@]+)@(?P<version>[0-9]+)$")


class RecipeIdentityError(InferError, ValueError):
    """A recipe name, version, reference or catalog is invalid or unknown."""


def _name_error(value: object) -> RecipeIdentityError:
    return RecipeIdentityError(
        why="a recipe name is lower-case letters and digits in hyphen-separated words",
        what=f"received name={value!r}",
        how="use a name such as 'example-x2'",
    )


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class RecipeIdentity:
    """A recipe's name and positive integer version."""

    name: str
    version: int

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise _name_error(self.name)
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise RecipeIdentityError(
                why="a recipe version is a positive integer",
                what=f"received version={self.version!r}",
                how="pass version=1 for the first release of a recipe",
            )

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"

    def as_tuple(self) -> tuple[str, int]:
        """``(name, version)``."""
        return (self.name, self.version)

    def as_dict(self) -> dict[str, str | int]:
        """``{"name": ..., "version": ...}`` for JSON records."""
        return {"name": self.name, "version": self.version}


def parse_recipe_identity(text: object) -> RecipeIdentity:
    """Parse ``"<name>@<version>"`` into a RecipeIdentity."""
    if not isinstance(text, str):
        raise RecipeIdentityError(
            why="a recipe reference is a string '<name>@<version>'",
            what=f"received {text!r} ({type(text).__name__})",
            how="pass a string such as 'example-x2@1'",
        )
    match = _TEXT.match(text.strip())
    if match is None:
        raise RecipeIdentityError(
            why="a recipe reference has the form '<name>@<version>'",
            what=f"received {text!r}",
            how="write the name, '@' and a positive integer version, such as 'example-x2@1'",
        )
    return RecipeIdentity(name=match["name"], version=int(match["version"]))


@dataclass(frozen=True, slots=True, kw_only=True)
class RecipeCatalogEntry:
    """A recipe an architecture ships, and the precisions it supports."""

    identity: RecipeIdentity
    supported_precisions: tuple[Precision, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.identity, RecipeIdentity):
            raise RecipeIdentityError(
                why="a catalog entry names its recipe with a RecipeIdentity",
                what=f"received identity={self.identity!r}",
                how="pass identity=RecipeIdentity(name=..., version=...) or parse_recipe_identity",
            )
        precisions = self.supported_precisions
        if (
            not isinstance(precisions, tuple)
            or not precisions
            or any(item not in PRECISIONS for item in precisions)
            or len(set(precisions)) != len(precisions)
        ):
            raise RecipeIdentityError(
                why="a catalog entry lists one or more distinct supported precisions",
                what=f"received supported_precisions={precisions!r}",
                how=f"pass a tuple drawn from {PRECISIONS}, such as ('fp32', 'fp16')",
            )


def validate_recipe_reference(
    reference: RecipeIdentity | str,
    catalog: Iterable[RecipeCatalogEntry],
    *,
    precision: Precision | None = None,
) -> RecipeCatalogEntry:
    """Find ``reference`` in ``catalog`` and check ``precision`` is supported; return the entry.

    Unknown names suggest the closest catalog name; a known name with another version lists
    the versions the catalog has.
    """
    identity = (
        reference if isinstance(reference, RecipeIdentity) else parse_recipe_identity(reference)
    )
    entries = tuple(catalog)
    keys = [entry.identity for entry in entries]
    if len(set(keys)) != len(keys):
        raise RecipeIdentityError(
            why="a recipe catalog lists each identity once",
            what=f"duplicates: {sorted({str(k) for k in keys if keys.count(k) > 1})}",
            how="remove the duplicated catalog entries",
        )
    for entry in entries:
        if entry.identity == identity:
            if precision is not None and precision not in entry.supported_precisions:
                raise RecipeIdentityError(
                    why=f"recipe {identity} is not built for every precision",
                    what=f"requested precision={precision!r}; supported: "
                    f"{entry.supported_precisions}",
                    how=f"choose one of {entry.supported_precisions}",
                )
            return entry
    versions = sorted(key.version for key in keys if key.name == identity.name)
    if versions:
        listed = ", ".join(f"{identity.name}@{number}" for number in versions)
        how = f"use one of the catalog's versions: {listed}"
    else:
        close = difflib.get_close_matches(identity.name, sorted({k.name for k in keys}), n=1)
        how = (
            f"did you mean {close[0]!r}?"
            if close
            else f"use a catalog recipe: {', '.join(str(key) for key in keys) or '(empty catalog)'}"
        )
    raise RecipeIdentityError(
        why="a recipe reference must name a recipe in the architecture's catalog",
        what=f"{identity} is not in the catalog",
        how=how,
    )
