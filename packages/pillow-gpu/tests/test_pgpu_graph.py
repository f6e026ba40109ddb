"""Graph nodes: immutable, with parameters and metadata copied at creation."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import Image as PILImage
from pillow_gpu._graph import Node, walk, walk_list


def test_params_and_info_are_private_read_only_copies() -> None:
    params = {"filter": 1}
    info = {"dpi": (72, 72)}
    node = Node(op="x", params=params, mode="L", size=(2, 2), info=info)
    params["filter"] = 2
    info.clear()
    assert dict(node.params) == {"filter": 1}
    assert dict(node.info) == {"dpi": (72, 72)}
    with pytest.raises(TypeError):
        node.params["filter"] = 3  # type: ignore[index]


@pytest.mark.parametrize("field", ["op", "params", "inputs", "mode", "size", "info", "cache"])
def test_fields_cannot_be_reassigned(field: str) -> None:
    node = Node(op="pil", mode="L", size=(1, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(node, field, None)


def test_defaults_and_shared_empty_mappings() -> None:
    leaf = Node(op="new", mode="RGB", size=(3, 1))
    user = Node(op="invert", params={}, inputs=(leaf,), mode="RGB", size=(3, 1), info={})
    assert leaf.inputs == ()
    assert dict(leaf.params) == {}
    assert dict(leaf.info) == {}
    assert user.params is leaf.info  # one read-only empty mapping, never written
    assert leaf.cache is not user.cache
    assert leaf.cache.get() is None
    assert [node.op for node in walk(user)] == ["new", "invert"]
    assert "cache" not in repr(leaf)


def _node(op: str, *inputs: Node) -> Node:
    return Node(op=op, inputs=inputs, mode="L", size=(2, 2))


def _graphs() -> dict[str, Node]:
    leaf, other = _node("new"), _node("new")
    chain = _node("c", _node("b", _node("a", leaf)))
    cached_middle = _node("c", _node("b", _node("a", leaf)))
    cached_middle.inputs[0].cache.put(PILImage.new("L", (2, 2)))
    cached_root = _node("b", _node("a", leaf))
    cached_root.cache.put(PILImage.new("L", (2, 2)))
    shared = _node("a", leaf)
    return {
        "leaf": leaf,
        "chain": chain,
        "cached-middle": cached_middle,
        "cached-root": cached_root,
        "two-leaves": _node("blend", _node("a", leaf), other),
        "diamond": _node("blend", _node("x", shared), _node("y", shared)),
        "chain-over-a-branch": _node("c", _node("b", _node("blend", leaf, other))),
    }


@pytest.mark.parametrize("name", list(_graphs()))
def test_walk_list_is_the_walk_in_order(name: str) -> None:
    root = _graphs()[name]
    assert walk_list(root) == list(walk(root))
