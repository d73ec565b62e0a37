"""The browser front end: ``menace serve``."""
