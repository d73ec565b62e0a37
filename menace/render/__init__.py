"""What people see: text boards, bead colours on a terminal, labels (layout apart from drawing)
and plots (drawn from data the use cases compute)."""
