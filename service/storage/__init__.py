"""Where games live: the store protocol, its in-memory and Redis (or Redis Cluster) backends."""
