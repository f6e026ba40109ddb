import pixtreme.infer


def test_namespace_path_includes_core_source() -> None:
    assert any(p.endswith("pixtreme/infer") for p in pixtreme.infer.__path__)
