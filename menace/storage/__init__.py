"""Storage: the schema (SQLAlchemy Core tables), transactions and migrations. The only layer that speaks SQL."""
