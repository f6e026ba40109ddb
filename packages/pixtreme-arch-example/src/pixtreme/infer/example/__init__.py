"""A small sample architecture for pixtreme-infer."""
