"""CUDA Graph components for module authors: CudaGraphSession and CudaGraphBuffers.

A module keeps validating every request, selecting an operation, handling its temporal history
and reset, and building output metadata; these components capture only the backend operations
that enqueue work on fixed GPU storage, and copy requests in and out of that storage::

    buffers = CudaGraphBuffers(fixed_input_frame, fixed_output_frame, params=fixed_gpu_params)
    graphs = CudaGraphSession(
        {"route-a": enqueue_a, "route-b": enqueue_b},
        resources=(buffers, *history, *execution_units),
        after_prepare=restore_initial_history_and_controls,
    )
    # per request, after the module's own validation:
    graphs.check_context()
    buffers.copy_inputs(frame, **gpu_params)
    graphs.replay(selected_name)
    result = buffers.copy_output(channels=..., colorspace=..., gamma=..., matrix=...)

Importing this module needs no GPU: CuPy is used only when a component is opened or called.
See docs/cuda-graph.md in the pixtreme-infer distribution for the full contract.
"""

from pixtreme.infer._cuda_graph._buffers import CudaGraphBuffers
from pixtreme.infer._cuda_graph._context import CudaGraphStateError
from pixtreme.infer._cuda_graph._session import CudaGraphSession, Operation

__all__ = ["CudaGraphBuffers", "CudaGraphSession", "CudaGraphStateError", "Operation"]
