"""CUDA Graph machinery behind pixtreme.infer.cuda_graph (CuPy loads only when used)."""
