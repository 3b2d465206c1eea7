"""The worker processes that keep costly work (large analyses, reviews, the bots' decisions) off
the event loop, in two lanes: people's work first."""
