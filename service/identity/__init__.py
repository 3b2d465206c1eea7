"""Who a player is: player keys, the players' store, and the caller a bearer token speaks for."""
