"""The use cases every front end calls: machines, a play session, tournaments, history, check,
transfer, arena and sweep. No click, no matplotlib at import."""
