"""MENACE: Donald Michie's 1961 Matchbox Educable Noughts And Crosses Engine, simulated."""

__version__ = "0.1.0"
