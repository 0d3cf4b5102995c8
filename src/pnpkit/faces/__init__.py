"""Drawing faces: templates rendered in a sandbox on a budget, faces written in Python, icons."""
