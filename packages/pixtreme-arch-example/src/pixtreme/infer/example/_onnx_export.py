"""ONNX export of the sample networks, built with onnx.helper (deterministic bytes).

Layout is NHWC float32 with batch 1, as the core's ONNX runner expects: the stateless upscaler
binds exactly ``input`` and ``output``; the recursive filter's single step binds ``input`` and
``history`` (the previous output) to ``output``. Each model carries the contract metadata under
the key ``pixtreme.infer.contract``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from pixtreme.infer.onnx import OnnxOutputContract, contract_metadata

from ._networks import RECURSIVE_FILTER, UPSCALE_X2, NetworkSpec
from ._weights import load_weights

if TYPE_CHECKING:
    import onnx

OPSET: Final = 17
PRODUCER: Final = "pixtreme-arch-example"


def output_contract(spec: NetworkSpec) -> OnnxOutputContract:
    """The core's ONNX output contract of a network (stored in the model's metadata)."""
    return OnnxOutputContract(
        batch=1, channels=spec.channels, spatial_scale=spec.spatial_scale, dtype="float32"
    )


def _upscale_x2_graph(onnx_module: Any) -> Any:
    helper = onnx_module.helper
    tensors = load_weights(UPSCALE_X2)
    initializers = [
        onnx_module.numpy_helper.from_array(tensors["conv.weight"], "conv.weight"),
        onnx_module.numpy_helper.from_array(tensors["conv.bias"], "conv.bias"),
        onnx_module.numpy_helper.from_array(
            np.asarray([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64), "edge_pads"
        ),
    ]
    nodes = [
        helper.make_node("Transpose", ["input"], ["nchw"], perm=[0, 3, 1, 2], name="to_nchw"),
        helper.make_node("Pad", ["nchw", "edge_pads"], ["padded"], mode="edge", name="clamp"),
        helper.make_node(
            "Conv",
            ["padded", "conv.weight", "conv.bias"],
            ["phases"],
            kernel_shape=[3, 3],
            name="bilinear_taps",
        ),
        helper.make_node(
            "DepthToSpace",
            ["phases"],
            ["upscaled"],
            blocksize=2,
            mode="CRD",
            name="depth_to_space",
        ),
        helper.make_node("Transpose", ["upscaled"], ["output"], perm=[0, 2, 3, 1], name="to_nhwc"),
    ]
    float32 = onnx_module.TensorProto.FLOAT
    return helper.make_graph(
        nodes,
        "upscale_x2",
        [helper.make_tensor_value_info("input", float32, [1, "height", "width", 3])],
        [helper.make_tensor_value_info("output", float32, [1, "out_height", "out_width", 3])],
        initializer=initializers,
    )


def _recursive_filter_graph(onnx_module: Any) -> Any:
    helper = onnx_module.helper
    alpha = load_weights(RECURSIVE_FILTER)["blend.alpha"].reshape(1, 1, 1, 3)
    initializers = [
        onnx_module.numpy_helper.from_array(alpha, "blend.alpha"),
        onnx_module.numpy_helper.from_array(
            (np.float32(1.0) - alpha).astype(np.float32), "blend.keep"
        ),
    ]
    nodes = [
        helper.make_node("Mul", ["input", "blend.alpha"], ["new_part"], name="weight_new"),
        helper.make_node("Mul", ["history", "blend.keep"], ["old_part"], name="weight_old"),
        helper.make_node("Add", ["new_part", "old_part"], ["output"], name="blend"),
    ]
    float32 = onnx_module.TensorProto.FLOAT
    shape = [1, "height", "width", 3]
    return helper.make_graph(
        nodes,
        "recursive_filter_step",
        [
            helper.make_tensor_value_info("input", float32, shape),
            helper.make_tensor_value_info("history", float32, shape),
        ],
        [helper.make_tensor_value_info("output", float32, shape)],
        initializer=initializers,
    )


def build_onnx_model(spec: NetworkSpec) -> onnx.ModelProto:
    """Build and check the ONNX model of a network from its shipped weights."""
    import onnx as onnx_module

    graph = (
        _upscale_x2_graph(onnx_module)
        if spec.name == UPSCALE_X2.name
        else _recursive_filter_graph(onnx_module)
    )
    model = onnx_module.helper.make_model(
        graph,
        opset_imports=[onnx_module.helper.make_opsetid("", OPSET)],
        producer_name=PRODUCER,
        producer_version=spec.graph_version,
        ir_version=8,
    )
    onnx_module.helper.set_model_props(model, contract_metadata(output_contract(spec)))
    onnx_module.checker.check_model(model, full_check=True)
    return model


def export_onnx(spec: NetworkSpec, path: str | Path) -> Path:
    """Write a network's ONNX model to ``path`` and return the path."""
    destination = Path(path)
    destination.write_bytes(build_onnx_model(spec).SerializeToString(deterministic=True))
    return destination
