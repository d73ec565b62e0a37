"""The games a matchbox machine can learn, found by name."""
