"""Storage: SQLAlchemy models, sessions and migrations. The only layer that speaks SQL."""
