"""ljtui's engine: planning, editing, gates and model access, with no UI."""
