"""Two small puzzles beside MENACE: McLean's MAGIC grid and the triangle pegboard."""
