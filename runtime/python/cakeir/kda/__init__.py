"""Kimi Delta Attention (KDA) forward for CAKE: `reference` holds the float64 token recurrence and chunked
(UT / WY) form on the chunk_kda contract (needs torch); the kernels are kernels/kda/*.cake."""
