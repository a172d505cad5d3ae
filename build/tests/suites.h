SUITE(rng)
