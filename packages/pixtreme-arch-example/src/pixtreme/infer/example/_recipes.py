"""Recipe identities (the core's RecipeIdentity) of the sample networks, and the weight
digest each recipe pins."""

from __future__ import annotations

from typing import Final

from pixtreme.infer.recipe_identity import RecipeIdentity

from ._errors import parameter_error
from ._networks import RECURSIVE_FILTER, UPSCALE_X2, NetworkSpec

UPSCALE_X2_RECIPE: Final = RecipeIdentity("example-upscale-x2", 1)
RECURSIVE_FILTER_RECIPE: Final = RecipeIdentity("example-recursive-filter", 1)

#: sha256 of the shipped weight file each recipe pins (scripts/generate_weights.py writes it).
RECIPE_WEIGHTS_SHA256: Final[dict[RecipeIdentity, str]] = {
    UPSCALE_X2_RECIPE: "710e2730575ebf0221ba431d6ac8a65105129182f15ebd44ddff5285e0eb2d46",
    RECURSIVE_FILTER_RECIPE: "21c3b835dd944d7500d1667c749e5eeb397ef29e035221becf55206984cffab7",
}

RECIPE_NETWORKS: Final[dict[RecipeIdentity, NetworkSpec]] = {
    UPSCALE_X2_RECIPE: UPSCALE_X2,
    RECURSIVE_FILTER_RECIPE: RECURSIVE_FILTER,
}


def check_recipe(artifact: object, expected: RecipeIdentity) -> RecipeIdentity:
    """Return ``artifact`` when it is ``expected``, else raise ContractError."""
    if artifact != expected:
        raise parameter_error(
            why="this factory opens exactly one recipe",
            what=f"received artifact {artifact!r}",
            how=f"pass {expected!r} (pixtreme.infer.example exports it)",
        )
    return expected
